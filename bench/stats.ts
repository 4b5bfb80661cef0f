/** Small helpers for benchmark figures: medians, not means (machines here are shared and noisy). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The 99th percentile, nearest rank: the value 99% of the samples are at or under. */
export function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)]!;
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

export function table(header: string[], rows: (string | number)[][]): string {
  const all = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

/** The median of `reps` timed runs of `run`, in milliseconds. */
export function time(reps: number, run: () => void): number {
  const out: number[] = [];
  for (let r = 0; r < reps; r++) {
    const start = performance.now();
    run();
    out.push(performance.now() - start);
  }
  return median(out);
}

/**
 * A line through `points` ([x, y]) that outliers do not tilt (Theil–Sen): the slope is the
 * median of the slopes between every two points of different x, the intercept the median of
 * `y − slope · x`. Undefined with fewer than two different x.
 */
export function theilSen(
  points: readonly (readonly [number, number])[],
): { slope: number; intercept: number } | undefined {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const [x1, y1] = points[i]!;
      const [x2, y2] = points[j]!;
      if (x1 !== x2) slopes.push((y2 - y1) / (x2 - x1));
    }
  }
  if (slopes.length === 0) return undefined;
  const slope = median(slopes);
  return { slope, intercept: median(points.map(([x, y]) => y - slope * x)) };
}

const fixed2 = (n: number) => n.toFixed(2);

/** Reading's goal: per KiB above start-up, and the 100 KiB plan it names as its scale. */
export const GOAL = { perKib: 0.2, at100: 20 };

/**
 * One kind's reading against the goal: the line's slope (a KiB, once a plan's fixed cost is paid)
 * and a 100 KiB plan by the line, each met or not; then, said beside them and not hidden, the
 * files' own figures against the tiny plan and the size under which the fixed cost alone is over
 * the goal's rate.
 */
export function goalVerdict(
  l: { slope: number; fixed: number; at100: number },
  files: readonly { kib: number; above: number }[],
): string {
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const perFile = median(files.map((f) => f.above));
  const over = files.filter((f) => f.above > GOAL.perKib).length;
  const floor = l.fixed > 0 ? l.fixed / GOAL.perKib : 0;
  return (
    `a KiB ${fixed2(l.slope)} ms (${met(l.slope <= GOAL.perKib)}); a 100 KiB plan ${fixed2(l.at100)} ms (${met(l.at100 <= GOAL.at100)}); ` +
    `file by file against the tiny plan ${fixed2(perFile)} ms/KiB median, ${over} of ${files.length} over ${GOAL.perKib}` +
    (floor > 0
      ? ` (the ${fixed2(l.fixed)} ms every real plan pays once is over ${GOAL.perKib} ms/KiB alone below ${Math.round(floor)} KiB)`
      : '')
  );
}
