import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseChecklist } from '../src/core/index.js';
import { scannedAlone } from '../src/core/plan/checklist.js';
import { scanOrRefuse } from '../src/core/plan/kinds/dialectScan.js';
import { scanSegments } from '../src/core/plan/kinds/markdownDialect.js';
import { KIRO_SCAN, readKiro } from '../src/core/plan/kinds/kiro/index.js';
import { readSpeckit, SPECKIT_SCAN } from '../src/core/plan/kinds/speckit/index.js';
import { readTaskmaster } from '../src/core/plan/kinds/taskmaster/index.js';
import { OPENSPEC_SCAN, readOpenspec } from '../src/core/plan/kinds/openspec/index.js';
import { readStory } from '../src/core/plan/kinds/bmad/index.js';
import type { ScanMode } from '../src/core/plan/kinds/dialectScan.js';
import { GOAL, goalVerdict, median, theilSen, time, table } from './stats.js';
import { buildTscLib } from './tscLib.js';

/**
 * `npm run bench -- plans`, on real plans people wrote: the shared corpus beside the clone
 * (`../shared/corpus/real-plans`, or where CODER_LOOP_CORPUS names), read in place, never copied.
 * For each plan file: its size, whether the line scanner read it alone or why it left the file to
 * remark, and its read time — cold (the first read in a fresh Node process, as a CLI call pays
 * it; the median of several processes) and warm (the median of many reads in one process, as the
 * App and the Action pay it after their first) — with ms per KiB above a tiny plan's cold read.
 * CODER_LOOP_BENCH_PLANS_BASE=<another checkout> (main's, say) reads each file cold with that
 * checkout's readers too, a process of each in turn, so that a change is measured against the
 * code before it under the same load.
 */
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export type Kind = 'speckit' | 'kiro' | 'openspec' | 'bmad' | 'taskmaster' | 'checklist';

/** The scanner's mode for a BMAD story (its reader's: the lists as remark's tree has them). */
const STORY_SCAN: ScanMode = { taskText: true, requirements: false, structure: true };

export interface PlanFile {
  path: string;
  kind: Kind;
  source: string;
}

export function corpusDir(): string | undefined {
  const dir =
    process.env.CODER_LOOP_CORPUS ?? join(repoRoot, '..', 'shared', 'corpus', 'real-plans');
  return existsSync(dir) ? dir : undefined;
}

/** The plan files of the corpus, by the folder of their kind (`other/` read as a checklist). */
export function planFiles(dir: string): PlanFile[] {
  const out: PlanFile[] = [];
  const visit = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        visit(path);
        continue;
      }
      const rel = relative(dir, path).split('\\').join('/');
      const top = rel.split('/')[0]!;
      let kind: Kind | undefined;
      if (top === 'speckit' && name === 'tasks.md') kind = 'speckit';
      else if (top === 'kiro' && name === 'tasks.md') kind = 'kiro';
      else if (top === 'openspec' && name === 'tasks.md') kind = 'openspec';
      // A BMAD story file (`1-2-account-management.md`): the file a BMAD project reads per story.
      else if (top === 'bmad' && /^\d+-\d+[a-z]?-.*\.md$/.test(name)) kind = 'bmad';
      else if (top === 'taskmaster' && name.endsWith('.json')) kind = 'taskmaster';
      else if (top === 'other' && name.endsWith('.md')) kind = 'checklist';
      if (kind) out.push({ path: rel, kind, source: readFileSync(path, 'utf8') });
    }
  };
  visit(dir);
  return out;
}

const READ: Record<Kind, (source: string, fast: boolean) => unknown> = {
  speckit: (s, fast) => readSpeckit(s, 'tasks.md', { fast }),
  kiro: (s, fast) => readKiro(s, 'tasks.md', { fast }),
  openspec: (s, fast) => readOpenspec(s, 'tasks.md', { fast }),
  bmad: (s, fast) => readStory(s, 'story.md', { fast }),
  taskmaster: (s) => readTaskmaster(s, 'tasks.json'),
  checklist: (s, fast) => parseChecklist(s, 'plan.md', { fast }),
};

/** How `fastPath` begins for a file read in pieces. */
const PIECES = 'in pieces:';

/**
 * Whether the fast path reads a file without remark, and if not, why (and where): a tasks file the
 * scanner refuses as a whole is read in pieces (`in pieces: …`, remark reading only those the
 * scanner leaves), unless it may define a link, which remark reads whole.
 */
function fastPath(file: PlanFile): string | undefined {
  switch (file.kind) {
    case 'taskmaster':
      return undefined; // JSON: no markdown, no remark
    case 'checklist':
      return scannedAlone(file.source) ? undefined : 'a segment the checklist scanner leaves';
    default: {
      const mode =
        file.kind === 'kiro'
          ? KIRO_SCAN
          : file.kind === 'openspec'
            ? OPENSPEC_SCAN
            : file.kind === 'bmad'
              ? STORY_SCAN
              : SPECKIT_SCAN;
      const scan = scanOrRefuse(file.source, mode);
      if (!('refused' in scan)) return undefined;
      const pieces = scanSegments(file.source, mode);
      if (!pieces) return `${scan.refused} (line ${scan.line}); a link definition: read whole`;
      const first = pieces.byRemark[0]!;
      return `${PIECES} ${pieces.byRemark.length} of ${pieces.segments} by remark, ${first.refused} (line ${first.line})`;
    }
  }
}

/**
 * A child's start (module text, run with `kind`, `path` and `lib` as its first arguments): the
 * readers of tsc's build in `lib`, `read` for the kind, and `source`, the file (or BENCH_SOURCE
 * for `-`). Every child of these benches reads so.
 */
export const CHILD_READ = `
const [kind, path, lib] = process.argv.slice(1);
const { readFileSync } = await import('node:fs');
const { readSpeckit } = await import(lib + '/plan/kinds/speckit/index.js');
const { readKiro } = await import(lib + '/plan/kinds/kiro/index.js');
const { readOpenspec } = await import(lib + '/plan/kinds/openspec/index.js');
const { readStory } = await import(lib + '/plan/kinds/bmad/index.js');
const { readTaskmaster } = await import(lib + '/plan/kinds/taskmaster/index.js');
const { parseChecklist } = await import(lib + '/index.js');
const read = {
  speckit: (s) => readSpeckit(s, 'tasks.md'),
  kiro: (s) => readKiro(s, 'tasks.md'),
  openspec: (s) => readOpenspec(s, 'tasks.md'),
  bmad: (s) => readStory(s, 'story.md'),
  taskmaster: (s) => readTaskmaster(s, 'tasks.json'),
  checklist: (s) => parseChecklist(s, 'plan.md'),
}[kind];
const source = path === '-' ? process.env.BENCH_SOURCE : readFileSync(path, 'utf8');
`;

// A fresh Node process reads one file once (cold), then many times (warm): tsc's build of the
// readers in lib/ (compiled by `compileReaders`: `npm run build` makes only the bundles), module
// loading not counted.
const CHILD = `${CHILD_READ}
let start = performance.now();
read(source);
const cold = performance.now() - start;
for (let i = 0; i < 3; i++) read(source);
const warm = [];
for (let i = 0; i < 15; i++) {
  start = performance.now();
  read(source);
  warm.push(performance.now() - start);
}
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ cold, warm: warm[7] }));
`;

/** A tiny plan of each kind: what a cold read costs before the file's size counts. */
export const TINY: Record<Kind, string> = {
  speckit: '## Phase 1: Setup\n\n- [ ] T001 Create the project\n',
  kiro: '# Implementation Plan\n\n- [ ] 1. Set up\n  - [ ] 1.1 Create the project\n',
  openspec: '## 1. Setup\n\n- [ ] 1.1 Create the project\n',
  bmad: '# Story 1.1: Set up\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Task 1: Create the project (AC: #1)\n',
  taskmaster: `${JSON.stringify({ master: { tasks: [{ id: 1, title: 'Set up', status: 'pending', dependencies: [], subtasks: [] }] } }, null, 2)}\n`,
  checklist: '## Phase 1: Setup\n\n- [ ] 1.1 Create the project\n',
};

/** The readers this checkout's build runs, and those of the base (CODER_LOOP_BENCH_PLANS_BASE). */
export const LIB = join(repoRoot, 'lib', 'core');
export const BASE_LIB = join(repoRoot, 'lib', 'base', 'core');

function child(kind: Kind, path: string, lib = LIB): { cold: number; warm: number } {
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', CHILD, kind, path, lib],
    {
      encoding: 'utf8',
      env: { ...process.env, BENCH_SOURCE: TINY[kind] },
    },
  );
  return JSON.parse(out) as { cold: number; warm: number };
}

/**
 * Cold and warm medians over `processes` fresh processes; with a base, its cold median too, its
 * processes run in turn with these (the same load for both).
 */
function measure(
  kind: Kind,
  path: string,
  processes: number,
  base: boolean,
): { cold: number; warm: number; baseCold: number | undefined } {
  const runs: { cold: number; warm: number }[] = [];
  const baseRuns: number[] = [];
  for (let i = 0; i < processes; i++) {
    runs.push(child(kind, path));
    if (base) baseRuns.push(child(kind, path, BASE_LIB).cold);
  }
  return {
    cold: median(runs.map((r) => r.cold)),
    warm: median(runs.map((r) => r.warm)),
    baseCold: base ? median(baseRuns) : undefined,
  };
}

const f2 = (n: number) => n.toFixed(2);

/**
 * tsc's lib/, module by module, as the child imports it; with CODER_LOOP_BENCH_PLANS_BASE naming
 * another checkout (main's, say), its src/ too, in lib/base/ (where it finds these node_modules).
 */
export function compileReaders(base: string | undefined): void {
  buildTscLib(join(repoRoot, 'tsconfig.build.json'));
  if (base) {
    buildTscLib(join(base, 'tsconfig.build.json'), [
      '--outDir',
      join(repoRoot, 'lib', 'base'),
      '--declaration',
      'false',
      '--sourceMap',
      'false',
    ]);
  }
}

export function benchCorpusPlans(processes = Number(process.env.BENCH_PROCESSES ?? 5)): string {
  const dir = corpusDir();
  if (!dir) {
    return [
      'Real plans: the shared corpus is absent (../shared/corpus/real-plans, or CODER_LOOP_CORPUS): nothing measured.',
      openspecChanges() ?? '',
    ].join('\n');
  }
  const files = planFiles(dir);
  const base = process.env.CODER_LOOP_BENCH_PLANS_BASE || undefined;
  compileReaders(base);
  const tiny = new Map<Kind, number>();
  const baseTiny = new Map<Kind, number>();
  for (const kind of new Set(files.map((f) => f.kind))) {
    const m = measure(kind, '-', processes, base !== undefined);
    tiny.set(kind, m.cold);
    if (m.baseCold !== undefined) baseTiny.set(kind, m.baseCold);
  }
  const rows: {
    file: PlanFile;
    kib: number;
    left: string | undefined;
    cold: number;
    warm: number;
    remark: number | undefined;
    above: number;
    baseCold: number | undefined;
    baseAbove: number | undefined;
  }[] = [];
  for (const file of files) {
    const kib = Buffer.byteLength(file.source) / 1024;
    const { cold, warm, baseCold } = measure(
      file.kind,
      join(dir, file.path),
      processes,
      base !== undefined,
    );
    // remark alone, the authority (and the fallback): what the fast path saves, warm.
    const alone = () => READ[file.kind](file.source, false);
    const remark = file.kind === 'taskmaster' ? undefined : (alone(), time(3, alone));
    rows.push({
      file,
      kib,
      left: fastPath(file),
      cold,
      warm,
      remark,
      above: Math.max(0, cold - tiny.get(file.kind)!) / kib,
      baseCold,
      baseAbove:
        baseCold === undefined ? undefined : Math.max(0, baseCold - baseTiny.get(file.kind)!) / kib,
    });
  }
  const out = [
    `Real plans people wrote (${relative(repoRoot, dir) || dir}): ${files.length} plan files; cold = first read in a fresh process (median of ${processes}), warm = median of 15 reads after 3 in that process (median of the ${processes}); "above" = (cold − a tiny plan's cold read) / KiB.`,
    `Machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (1, 5, 15 min).`,
    `Tiny plan, cold: ${[...tiny].map(([k, v]) => `${k} ${f2(v)} ms`).join(', ')}.`,
    ...(base
      ? [
          `Base (${base}), its processes in turn with these: tiny plan, cold: ${[...baseTiny].map(([k, v]) => `${k} ${f2(v)} ms`).join(', ')}.`,
        ]
      : []),
    '',
    table(
      [
        'file',
        'kind',
        'KiB',
        'fast path',
        'cold ms',
        'above ms/KiB',
        'warm ms',
        'warm ms/KiB',
        'remark alone ms',
        ...(base ? ['base cold ms', 'base above ms/KiB'] : []),
      ],
      rows.map((r) => [
        r.file.path.length > 60 ? `${r.file.path.slice(0, 57)}...` : r.file.path,
        r.file.kind,
        r.kib.toFixed(1),
        r.left ? `no: ${r.left}` : 'yes',
        f2(r.cold),
        f2(r.above),
        f2(r.warm),
        f2(r.warm / r.kib),
        r.remark === undefined ? '–' : f2(r.remark),
        ...(base ? [f2(r.baseCold!), f2(r.baseAbove!)] : []),
      ]),
    ),
    '',
  ];
  const markdown = rows.filter((r) => r.file.kind !== 'taskmaster' && r.file.kind !== 'checklist');
  const fast = markdown.filter((r) => !r.left).length;
  const inPieces = markdown.filter((r) => r.left?.startsWith(PIECES)).length;
  out.push(
    `Fast path: ${fast} of ${markdown.length} tasks files of spec-kit, Kiro and OpenSpec and BMAD stories (${Math.round((100 * fast) / Math.max(1, markdown.length))}%), ${inPieces} more in pieces (remark reading only the pieces the scanner leaves); ` +
      `${rows.filter((r) => r.file.kind === 'checklist' && !r.left).length} of ${rows.filter((r) => r.file.kind === 'checklist').length} other checklists; Task Master's JSON never uses remark.`,
  );
  for (const kind of ['speckit', 'kiro', 'openspec', 'bmad', 'taskmaster', 'checklist'] as const) {
    const of = rows.filter((r) => r.file.kind === kind);
    if (of.length === 0) {
      out.push(`  ${kind.padEnd(10)} no file of this kind in the corpus`);
      continue;
    }
    out.push(
      `  ${kind.padEnd(10)} ${String(of.length).padStart(2)} files: above start-up ${f2(median(of.map((r) => r.above)))} ms/KiB median, ${f2(Math.max(...of.map((r) => r.above)))} max; warm ${f2(median(of.map((r) => r.warm / r.kib)))} ms/KiB median, ${f2(Math.max(...of.map((r) => r.warm / r.kib)))} max` +
        (base
          ? `; base above start-up ${f2(median(of.map((r) => r.baseAbove!)))} ms/KiB median, ${f2(Math.max(...of.map((r) => r.baseAbove!)))} max`
          : ''),
    );
  }
  // What a KiB costs once the fixed costs are paid: a line through every file's cold read of a
  // kind against its size. Its slope is the cost per KiB; what it leaves at 0 KiB above the tiny
  // plan's read is what any real plan of the kind pays once (code the tiny plan never reaches,
  // compiled and warmed on the first read), whatever its size.
  out.push(
    'Cold read against size (a line through every file of the kind, Theil–Sen: outliers do not tilt it):',
  );
  const line = (kind: Kind, cold: (r: (typeof rows)[number]) => number, tinyCold: number) => {
    const fitted = theilSen(
      rows.filter((r) => r.file.kind === kind).map((r) => [r.kib, cold(r)] as const),
    );
    if (!fitted) return undefined;
    const fixed = fitted.intercept - tinyCold;
    return { slope: fitted.slope, fixed, at100: fixed + 100 * fitted.slope };
  };
  const said = (l: NonNullable<ReturnType<typeof line>>) =>
    `${f2(l.slope)} ms/KiB, ${f2(l.fixed)} ms fixed above the tiny plan's read; a 100 KiB plan ${f2(l.at100)} ms above start-up`;
  const verdicts: string[] = [];
  for (const kind of ['speckit', 'kiro', 'openspec', 'bmad', 'taskmaster'] as const) {
    if (rows.filter((r) => r.file.kind === kind).length < 3) continue;
    const now = line(kind, (r) => r.cold, tiny.get(kind)!)!;
    const before = base ? line(kind, (r) => r.baseCold!, baseTiny.get(kind)!) : undefined;
    out.push(`  ${kind.padEnd(10)} ${said(now)}${before ? `; base ${said(before)}` : ''}`);
    verdicts.push(
      `  ${kind.padEnd(10)} ${goalVerdict(
        now,
        rows.filter((r) => r.file.kind === kind),
      )}`,
    );
  }
  out.push(
    `Against the goal, ${GOAL.perKib} ms per KiB above start-up (a 100 KiB real plan in ${GOAL.at100} ms), read at the scale it names: what a KiB costs once a plan's fixed cost is paid, and a 100 KiB plan by the line (docs/benchmarks.md, "How the goal is judged"):`,
    ...verdicts,
  );
  const slowest = [...rows].sort((a, b) => b.above - a.above).slice(0, 5);
  out.push('Slowest files (cold, above start-up, per KiB):');
  for (const r of slowest) {
    out.push(
      `  ${f2(r.above)} ms/KiB  ${r.file.path} (${r.kib.toFixed(1)} KiB, ${f2(r.cold)} ms cold): ${r.left ? `remark: ${r.left}` : 'fast path'}`,
    );
  }
  const openspec = openspecChanges();
  if (openspec) out.push('', openspec);
  return out.join('\n');
}

/**
 * OpenSpec's own changes (its maintainers plan OpenSpec with OpenSpec): when CODER_LOOP_OPENSPEC
 * names a checkout of github.com/Fission-AI/OpenSpec, every `tasks.md` under its
 * `openspec/changes/` (archived changes too) that reads as a plan, read in place: how many the
 * line scanner reads alone, and why it leaves the others to remark. The shared corpus has none.
 */
function openspecChanges(): string | undefined {
  const repo = process.env.CODER_LOOP_OPENSPEC;
  if (!repo) return undefined;
  const files: string[] = [];
  const visit = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name === 'tasks.md') files.push(path);
    }
  };
  visit(join(repo, 'openspec', 'changes'));
  const refused: string[] = [];
  let plans = 0;
  for (const path of files) {
    const source = readFileSync(path, 'utf8');
    if (readOpenspec(source, 'tasks.md').phases.length === 0) continue;
    plans++;
    const scan = scanOrRefuse(source, OPENSPEC_SCAN);
    if ('refused' in scan) refused.push(`  ${relative(repo, path)}:${scan.line}: ${scan.refused}`);
  }
  return [
    `OpenSpec's own changes (${repo}): ${plans - refused.length} of ${plans} tasks files on the fast path (${Math.round((100 * (plans - refused.length)) / Math.max(1, plans))}%)${refused.length ? '; left to remark:' : ''}`,
    ...refused,
  ].join('\n');
}
