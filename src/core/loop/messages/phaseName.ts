/** How the loop names a phase in titles, replies and commit messages: `Phase 3 — Name`. */
export function phaseTitle(phase: { number: number | string; name: string }): string {
  return `Phase ${phase.number}${phase.name ? ` — ${phase.name}` : ''}`;
}

/** The record's integer phase: the kind's number when it is one, else its leading number. */
export function phaseInteger(number: string): number {
  const m = /^\d+/.exec(number);
  return m ? Number(m[0]) : 0;
}
