import { REQUIREMENT_WORD } from '../dialectScan.js';
import type { KindFile } from '../kindModule.js';
import type { DialectPhase } from '../markdownDialect.js';
import { QUOTE_LIMIT, type KindContext } from '../view.js';

/** A Kiro spec's documents for a phase: its requirements (those its tasks cite) and its design. */

/**
 * A heading of one requirement: `Requirement 2`, or in the spec's language, as Kiro writes it
 * there (`Требование 2`, `要件2: …`, `需求 2：…`, `Exigence 2 : …`).
 */
const REQUIREMENT_HEADING = new RegExp(String.raw`^${REQUIREMENT_WORD}\s*(\d+)\b`);

/** Kiro's `### Requirement N` blocks of requirements.md, by number. */
function requirementBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  let number: string | undefined;
  let level = 0;
  let body: string[] = [];
  const flush = () => {
    if (number !== undefined) blocks.set(number, body.join('\n').trim());
  };
  for (const line of lines) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const m = REQUIREMENT_HEADING.exec(heading[2]!.trim());
      if (m) {
        flush();
        number = m[1]!;
        level = heading[1]!.length;
        body = [line];
        continue;
      }
      if (number !== undefined && heading[1]!.length <= level) {
        flush();
        number = undefined;
      }
    }
    if (number !== undefined) body.push(line);
  }
  flush();
  return blocks;
}

export function kiroContext(
  plan: KindFile,
  phase: DialectPhase,
  present: ReadonlySet<string>,
  files: ReadonlyMap<string, string>,
): KindContext {
  const links: KindContext['links'] = [];
  const sections: KindContext['sections'] = [];
  const at = (file: string) => `${plan.folder}/${file}`;
  const requirementsFile = ['requirements.md', 'bugfix.md'].map(at).find((p) => present.has(p));
  if (requirementsFile) {
    links.push({ label: 'Requirements', path: requirementsFile });
    const text = files.get(requirementsFile);
    if (text !== undefined) {
      const cited = [
        ...new Set(phase.tasks.flatMap((t) => t.requirements.map((r) => r.split('.')[0]!))),
      ];
      const blocks = requirementBlocks(text);
      const first = cited.filter((n) => blocks.has(n)).map((n) => blocks.get(n)!);
      if (first.length > 0) {
        sections.push({
          title: `Requirements the tasks cite (${cited.map((n) => `Requirement ${n}`).join(', ')})`,
          text: first.join('\n\n').slice(0, QUOTE_LIMIT),
        });
      } else sections.push({ title: 'Requirements', text: text.slice(0, QUOTE_LIMIT) });
    }
  }
  const design = at('design.md');
  if (present.has(design)) {
    links.push({ label: 'Design', path: design });
    const text = files.get(design);
    if (text !== undefined) sections.push({ title: 'Design', text: text.slice(0, QUOTE_LIMIT) });
  }
  return { links, sections };
}
