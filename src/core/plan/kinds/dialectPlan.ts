import type { Problem } from '../../problem.js';
import type { NamedPlan } from './discovery.js';
import { readMarkdownPlan, type MarkdownKind } from './dialects.js';
import {
  currentDialectPhase,
  dialectPhaseFinished,
  setDialectStates,
  type DialectPhase,
  type DialectTask,
} from './markdownDialect.js';
import {
  noPhase,
  QUOTE_LIMIT,
  splitProblems,
  type KindContext,
  type KindPhase,
  type KindPlan,
  type KindSidecar,
} from './view.js';

/** The markdown kinds (spec-kit, Kiro, OpenSpec) as the kind-neutral view: `openDialect`. */

const SPECKIT_LINKS = [
  ['Spec', 'spec.md'],
  ['Plan', 'plan.md'],
  ['Data model', 'data-model.md'],
  ['Research', 'research.md'],
  ['Quickstart', 'quickstart.md'],
] as const;

function readDialectTasks(plan: NamedPlan, kind: MarkdownKind, source: string) {
  const read = readMarkdownPlan(kind, source, plan.path);
  const { errors, warnings } = splitProblems(read.problems);
  const tasked = read.phases.filter((p) => p.tasks.length > 0);
  if (tasked.length === 0 && errors.length === 0) {
    errors.push(
      noPhase(
        plan.path,
        kind === 'kiro'
          ? 'Write a task as "- [ ] 1. Title" with sub-tasks "- [ ] 1.1 Title".'
          : kind === 'openspec'
            ? 'Write tasks as "- [ ] 1.1 Description" under a "## 1. Group" heading.'
            : 'Write tasks as "- [ ] T001 Description" under a "## Phase 1: Name" heading.',
      ),
    );
  }
  const view = (p: DialectPhase): KindPhase => ({
    number: p.number,
    name: p.name,
    line: p.line,
    tasks: p.tasks.map((t) => ({
      id: t.id,
      text: t.text,
      state: t.state,
      line: t.line,
      optional: t.optional,
      ...(t.optional ? { note: 'optional' as const } : {}),
      requirements: t.requirements,
    })),
    finished: dialectPhaseFinished(p),
  });
  const phases = tasked.map(view);
  const current = currentDialectPhase({ phases: tasked, problems: [] });
  return {
    tasked,
    phases,
    current: current ? phases[tasked.indexOf(current)] : undefined,
    complete: errors.length === 0 && phases.length > 0 && phases.every((p) => p.finished),
    waiting: undefined,
    problems: errors,
    warnings,
  };
}

export function openDialect(
  plan: NamedPlan,
  kind: MarkdownKind,
  source: string,
  contextProblems: Problem[],
  sidecar: KindSidecar,
  present: ReadonlySet<string>,
  files: ReadonlyMap<string, string>,
): KindPlan {
  const read = readDialectTasks(plan, kind, source);
  const byNumber = new Map(read.tasked.map((p) => [p.number, p]));
  const own = (phase: KindPhase): DialectPhase => {
    const p = byNumber.get(phase.number);
    if (!p) throw new Error(`Phase ${phase.number} is not in ${plan.path}.`);
    return p;
  };
  const mark = (phase: KindPhase, state: 'doing' | 'done'): string => {
    const p = own(phase);
    const tasks: DialectTask[] = p.tasks.filter((t) => !t.optional);
    // Kiro's top-level task, when its sub-tasks are the phase's tasks, is marked with them;
    // an optional one never is.
    if (p.self && !p.self.optional && !p.tasks.includes(p.self)) tasks.push(p.self);
    return setDialectStates(source, kind, tasks, state);
  };
  return {
    plan,
    phases: read.phases,
    current: read.current,
    complete: read.complete && contextProblems.length === 0,
    waiting: read.waiting,
    problems: [...contextProblems, ...read.problems],
    warnings: read.warnings,
    sidecar,
    markStart: (phase) => mark(phase, 'doing'),
    markDone: (phase) => mark(phase, 'done'),
    context: (phase) =>
      kind === 'kiro'
        ? kiroContext(plan, own(phase), present, files)
        : kind === 'openspec'
          ? openspecContext(plan, present)
          : speckitContext(plan, present),
  };
}

/** OpenSpec's change documents: the proposal, the design, and the change's delta specs. */
function openspecContext(plan: NamedPlan, present: ReadonlySet<string>): KindContext {
  const links: KindContext['links'] = [];
  for (const [label, file] of [
    ['Proposal', 'proposal.md'],
    ['Design', 'design.md'],
  ] as const) {
    const path = `${plan.folder}/${file}`;
    if (present.has(path)) links.push({ label, path });
  }
  const specs = `${plan.folder}/specs/`;
  for (const path of [...present]
    .filter((p) => p.startsWith(specs) && p.endsWith('/spec.md'))
    .sort()) {
    links.push({ label: `Spec delta ${path.slice(specs.length, -'/spec.md'.length)}`, path });
  }
  return { links, sections: [] };
}

function speckitContext(plan: NamedPlan, present: ReadonlySet<string>): KindContext {
  const links: KindContext['links'] = [];
  for (const [label, file] of SPECKIT_LINKS) {
    const path = `${plan.folder}/${file}`;
    if (present.has(path)) links.push({ label, path });
  }
  const contracts = `${plan.folder}/contracts/`;
  for (const path of [...present].filter((p) => p.startsWith(contracts)).sort()) {
    links.push({ label: `Contract ${path.slice(contracts.length)}`, path });
  }
  return { links, sections: [] };
}

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
      const m = /^requirement\s+(\d+)\b/i.exec(heading[2]!.trim());
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

function kiroContext(
  plan: NamedPlan,
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
