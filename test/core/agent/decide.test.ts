import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { decideApply, type AgentChange, type BaseEntry } from '../../../src/core/index.js';
import {
  defaultPlanGlobs,
  findPlanFiles,
  planReadsOnTree,
  type GuardedPlanFile,
} from '../../../src/core/plan/kinds/discovery.js';
import { fixture } from '../../helpers/kinds.js';
import { fixSeed } from '../../helpers/seed.js';

fixSeed(import.meta.url);

const file = (path: string, text = 'x\n'): AgentChange => ({
  path,
  mode: '100644',
  content: Buffer.from(text).toString('base64'),
});
const link = (path: string, target: string): AgentChange => ({
  path,
  mode: '120000',
  content: Buffer.from(target).toString('base64'),
});
const baseFile = (path: string): BaseEntry => ({ path, mode: '100644' });
const baseLink = (path: string, target: string): BaseEntry => ({ path, mode: '120000', target });

const PLANS = 'docs/plans';
const BASE: BaseEntry[] = [
  baseFile('README.md'),
  baseFile('docs/plans/Example/01_Master Plan/01_Checklist.md'),
  baseFile('docs/guide.md'),
  baseFile('.github/coder.yml'),
  baseFile('a/x.txt'),
];
const decide = (changes: AgentChange[], base: BaseEntry[] = BASE) =>
  decideApply({ changes, plansDir: PLANS, base });

describe('decideApply: symbolic links', () => {
  it('refuses two links that each stay inside but chain out of the repository', () => {
    // a/s -> .. is the root; a/q -> s/../.. is then above it.
    const result = decide([link('a/s', '..'), link('a/q', 's/../..')]);
    expect(result).toEqual({
      ok: false,
      problems: [
        '"a/q" is a symbolic link that leaves the repository through a chain of links (a/q -> s/../.., a/s -> ..)',
      ],
    });
  });

  it('the issue case: a/s -> ../.. and a/q -> s/../../..', () => {
    const result = decide([link('a/s', '../..'), link('a/q', 's/../../..')]);
    expect(result.ok).toBe(false);
    expect(result.ok || result.problems).toEqual([
      '"a/s" is a symbolic link that leaves the repository',
      '"a/q" is a symbolic link that leaves the repository',
    ]);
  });

  it("a folder that makes a head's dangling link leave is refused; an unrelated change is not", () => {
    // At the head `b` does not exist, so `a -> b/../..` points nowhere (the kernel stops at `b`).
    const base = [...BASE, baseLink('l', 'b/../..')];
    expect(decide([file('b/a')], base)).toEqual({
      ok: false,
      problems: ['"l" is a symbolic link that leaves the repository'],
    });
    expect(decide([file('src/other.ts')], base).ok).toBe(true);
    // Through a file it stays nowhere (ENOTDIR), as on a real file system.
    expect(decide([file('b')], base).ok).toBe(true);
  });

  it('with the base tree: a new link that turns a link of the head into one that leaves', () => {
    const base = [...BASE, baseLink('a/l', 'b/..')];
    expect(decide([link('a/b', '..')], base)).toEqual({
      ok: false,
      problems: [
        '"a/l" is a symbolic link that leaves the repository through a chain of links (a/l -> b/.., a/b -> ..)',
      ],
    });
    // And a new link through a link of the head.
    expect(decide([link('a/q', 'l/..')], [...BASE, baseLink('a/l', '..')]).ok).toBe(false);
  });

  it('accepts links inside, and leaves alone a link of the head that already left', () => {
    const base = [...BASE, baseLink('vendor/sdk', '/opt/sdk')];
    expect(decide([link('a/s', '..'), link('a/q', 's/docs/guide.md')], base).ok).toBe(true);
  });

  it('refuses a loop of links and a file beyond a link', () => {
    expect(decide([link('a/p', 'q'), link('a/q', 'p/x')]).ok).toBe(false);
    expect(decide([link('a/s', '..'), file('a/s/x.txt')])).toEqual({
      ok: false,
      problems: [
        '"a/s" is both a file and a folder',
        '"a/s/x.txt" is beyond the symbolic link "a/s"',
      ],
    });
    expect(decide([file('a/x.txt/y')])).toEqual({
      ok: false,
      problems: ['"a/x.txt/y" is inside "a/x.txt", which is a file'],
    });
  });
});

describe('decideApply: folders of protected paths', () => {
  it.each([
    [file('docs'), 'replaces'],
    [{ path: 'docs', deleted: true } as AgentChange, 'deletes'],
    [link('docs', 'a'), 'replaces'],
  ])('refuses %j, a parent of plansDir', (change, verb) => {
    expect(decide([change])).toEqual({
      ok: false,
      problems: [`"docs" — ${verb} the folder that holds the plan documents (docs/plans/)`],
    });
  });

  it('refuses .github itself, and DOCS in any case', () => {
    expect(decide([{ path: '.github', deleted: true }]).ok).toBe(false);
    expect(decide([{ path: 'Docs', deleted: true }]).ok).toBe(false);
    expect(decide([file('docs/other.md'), { path: 'docs/guide.md', deleted: true }]).ok).toBe(true);
  });
});

/** The tree GitHub makes of `base` and an accepted change set: a folder replaced or deleted goes whole. */
function applyModel(base: BaseEntry[], changes: AgentChange[]): Map<string, BaseEntry> {
  const tree = new Map(base.map((e) => [e.path, e]));
  for (const c of changes) {
    for (const key of [...tree.keys()])
      if (key === c.path || key.startsWith(`${c.path}/`)) tree.delete(key);
    if (!('deleted' in c))
      tree.set(c.path, {
        path: c.path,
        mode: c.mode,
        ...(c.mode === '120000' ? { target: Buffer.from(c.content, 'base64').toString() } : {}),
      });
  }
  return tree;
}

const NAMES = ['a', 'b', 's', 'docs', 'plans', '.github'];
const segment = fc.constantFrom(...NAMES);
const pathArb = fc.array(segment, { minLength: 1, maxLength: 3 }).map((p) => p.join('/'));
const targetArb = fc
  .array(fc.constantFrom('a', 'b', 's', '..', '..', '.', 'docs'), { minLength: 1, maxLength: 5 })
  .map((p) => p.join('/'));

/** A consistent tree: no path is both a file and a folder. */
function consistent(entries: BaseEntry[]): BaseEntry[] {
  const out: BaseEntry[] = [];
  for (const e of entries) {
    if (
      out.some(
        (o) =>
          o.path === e.path || o.path.startsWith(`${e.path}/`) || e.path.startsWith(`${o.path}/`),
      )
    )
      continue;
    out.push(e);
  }
  return out;
}
const baseArb = fc
  .array(
    fc.oneof(
      pathArb.map((p) => baseFile(p)),
      fc.tuple(pathArb, targetArb).map(([p, t]) => baseLink(p, t)),
    ),
    { maxLength: 8 },
  )
  .map((entries) =>
    consistent([baseFile('docs/plans/c.md'), baseFile('.github/coder.yml'), ...entries]),
  );
const changeArb = fc.oneof(
  pathArb.map((p) => file(p)),
  pathArb.map((p): AgentChange => ({ path: p, deleted: true })),
  fc.tuple(pathArb, targetArb).map(([p, t]) => link(p, t)),
);
const changesArb = fc
  .array(changeArb, { maxLength: 5 })
  .map((cs) => cs.filter((c, i) => cs.findIndex((d) => d.path === c.path) === i));

describe('decideApply: properties over generated trees', () => {
  it('an accepted change set leaves every file under plansDir and .github as it was', () => {
    fc.assert(
      fc.property(baseArb, changesArb, (base, changes) => {
        const result = decideApply({ changes, plansDir: PLANS, base });
        if (!result.ok) return;
        const before = new Map(base.map((e) => [e.path, e]));
        const after = applyModel(base, changes);
        const guarded = (p: string) =>
          p === PLANS || p.startsWith(`${PLANS}/`) || p === '.github' || p.startsWith('.github/');
        for (const p of new Set([...before.keys(), ...after.keys()]))
          if (guarded(p)) expect(after.get(p)).toEqual(before.get(p));
      }),
      { numRuns: 400 },
    );
  });

  it('in an accepted change set no link leaves the repository on a real file system (unless it did at the head)', () => {
    // The repository sits deep in a folder whose every level holds the names links use, so a
    // link that leaves it resolves to something real.
    const root = mkdtempSync(join(tmpdir(), 'coder-loop-links-'));
    try {
      let outside = root;
      for (let i = 0; i < 6; i++) {
        for (const n of NAMES) mkdirSync(join(outside, n, 'a', 'b'), { recursive: true });
        outside = join(outside, 'o');
        mkdirSync(outside);
      }
      // The level the repositories sit in holds the names too: a link at the head that leaves
      // the repository by one `..` resolves there, not to nothing (seed -1444598082: `a ->
      // b/../../a` left it at the head, dangling here, and was counted as a new way out once a
      // change made `b -> .`).
      for (const n of NAMES) mkdirSync(join(outside, n, 'a', 'b'), { recursive: true });
      let run = 0;
      fc.assert(
        fc.property(baseArb, changesArb, (base, changes) => {
          const result = decideApply({ changes, plansDir: PLANS, base });
          if (!result.ok) return;
          const escapes = (tree: Map<string, BaseEntry>): Set<string> => {
            const repo = join(outside, `r${run++}`);
            for (const e of tree.values()) {
              mkdirSync(dirname(join(repo, e.path)), { recursive: true });
              if (e.mode === '120000') symlinkSync(e.target!, join(repo, e.path));
              else writeFileSync(join(repo, e.path), 'x');
            }
            const out = new Set<string>();
            for (const e of tree.values()) {
              if (e.mode !== '120000') continue;
              let real: string;
              try {
                // The kernel's resolution (as a checkout meets it): Node's own realpathSync
                // resolves `..` after a link by the name, and never ends on a link such as
                // `b -> a/../b` where `a -> ../..` (b is a real folder two levels up).
                real = realpathSync.native(join(repo, e.path));
              } catch {
                continue; // dangling or a loop: it points nowhere
              }
              if (real !== repo && !real.startsWith(`${repo}${sep}`))
                out.add(`${e.path}>${e.target}`);
            }
            rmSync(repo, { recursive: true, force: true });
            return out;
          };
          const before = escapes(new Map(base.map((e) => [e.path, e])));
          const after = escapes(applyModel(base, changes));
          expect([...after].filter((l) => !before.has(l))).toEqual([]);
        }),
        { numRuns: 300 },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('decideApply: partial work of a timed-out or paused agent (agent.keepPartialWork)', () => {
  const changes = [file('src/a.ts')];
  const cases: {
    name: string;
    outcome: 'changed' | 'timed-out' | 'paused';
    keep: boolean | undefined;
    changes: AgentChange[];
    expected: 'applied' | 'partial' | 'discarded' | 'refused';
  }[] = [
    {
      name: 'a finished run is applied whole',
      outcome: 'changed',
      keep: false,
      changes,
      expected: 'applied',
    },
    {
      name: 'a finished run with the setting on is not partial',
      outcome: 'changed',
      keep: true,
      changes,
      expected: 'applied',
    },
    {
      name: 'timed out, setting off: discarded',
      outcome: 'timed-out',
      keep: false,
      changes,
      expected: 'discarded',
    },
    {
      name: 'timed out, setting absent: discarded',
      outcome: 'timed-out',
      keep: undefined,
      changes,
      expected: 'discarded',
    },
    {
      name: 'timed out, setting on: partial',
      outcome: 'timed-out',
      keep: true,
      changes,
      expected: 'partial',
    },
    {
      name: 'timed out, setting on, nothing changed: discarded',
      outcome: 'timed-out',
      keep: true,
      changes: [],
      expected: 'discarded',
    },
    {
      name: "paused at the provider's limit, setting off: discarded (the agent does not choose)",
      outcome: 'paused',
      keep: false,
      changes,
      expected: 'discarded',
    },
    {
      name: "paused at the provider's limit, setting on: partial",
      outcome: 'paused',
      keep: true,
      changes,
      expected: 'partial',
    },
    {
      name: 'timed out, setting on, a protected path: refused like any change set',
      outcome: 'timed-out',
      keep: true,
      changes: [file('src/a.ts'), file('.github/workflows/x.yml')],
      expected: 'refused',
    },
  ];
  it.each(cases)('$name', ({ outcome, keep, changes: set, expected }) => {
    const result = decideApply({
      changes: set,
      plansDir: PLANS,
      base: BASE,
      outcome,
      ...(keep === undefined ? {} : { keepPartialWork: keep }),
    });
    const got = result.ok
      ? result.partial
        ? 'partial'
        : 'applied'
      : 'discarded' in result
        ? 'discarded'
        : 'refused';
    expect(got).toBe(expected);
    if (result.ok) expect(result.changes.map((c) => c.path)).toEqual(set.map((c) => c.path));
  });
});

describe("decideApply: every plan's documents, of every kind, and every sidecar", () => {
  const base: BaseEntry[] = [
    ...BASE,
    baseFile('specs/001-albums/tasks.md'),
    baseFile('specs/001-albums/spec.md'),
    baseFile('.kiro/specs/auth/tasks.md'),
    baseFile('.taskmaster/tasks/tasks.json'),
    baseFile('.taskmaster/docs/prd.txt'),
    baseFile('openspec/changes/add-export/tasks.md'),
    baseFile('openspec/specs/profile/spec.md'),
    baseFile('specs/api/openapi.yaml'),
  ];
  it.each([
    'specs/001-albums/tasks.md',
    'specs/001-albums/coder-loop/Master_Log.md',
    'specs/001-albums/spec.md',
    '.kiro/specs/auth/design.md',
    '.kiro/steering/product.md',
    '.kiro/steering/tech.md',
    '.taskmaster/tasks/tasks.json',
    '.taskmaster/docs/prd.txt',
    'openspec/changes/add-export/tasks.md',
    'openspec/specs/profile/spec.md',
  ])('refuses a change to %s', (path) => {
    const result = decideApply({ changes: [file(path)], plansDir: PLANS, base });
    expect(result).toEqual({
      ok: false,
      problems: [expect.stringContaining(`${JSON.stringify(path)} — `)],
    });
  });

  it('refuses a new plan of another kind, and its deletion', () => {
    expect(decide([file('.kiro/specs/new/tasks.md')], base).ok).toBe(false);
    expect(decide([{ path: 'specs/001-albums', deleted: true }], base).ok).toBe(false);
    expect(decide([{ path: 'specs', deleted: true }], base).ok).toBe(false);
  });

  it('applies a change to a folder that holds no plan', () => {
    expect(decide([file('specs/api/openapi.yaml')], base).ok).toBe(true);
    expect(decide([file('src/tasks.md')], base).ok).toBe(true);
  });

  it("refuses a change to BMAD's config, which says where the plan's story files are, or a new one that would", () => {
    const bmad = [
      ...BASE,
      baseFile('_bmad-output/implementation-artifacts/sprint-status.yaml'),
      baseFile('_bmad/bmm/config.yaml'),
    ];
    for (const path of ['_bmad/bmm/config.yaml', '.bmad/bmm/config.yaml']) {
      expect(
        decide([file(path, 'implementation_artifacts: "{project-root}/src"\n')], bmad),
      ).toEqual({
        ok: false,
        problems: [
          `${JSON.stringify(path)} — the documents of the plan _bmad-output/implementation-artifacts/sprint-status.yaml are the architect's, its bookkeeping the loop's`,
        ],
      });
    }
    expect(decide([file('_bmad/core/config.yaml')], bmad).ok).toBe(true);
  });

  it("refuses a story file BMAD's config places outside _bmad-output/, a copy of one elsewhere and its folder, as the config on the trusted trees says", () => {
    const ia = '_bmad-output/implementation-artifacts';
    const sprint = `${ia}/sprint-status.yaml`;
    const config = '_bmad/bmm/config.yaml';
    const story = 'docs/stories/1-3-plant-data-model.md';
    const bmad = [...BASE, baseFile(sprint), baseFile(config), baseFile(story)];
    const [plan] = findPlanFiles(
      bmad.map((e) => e.path),
      defaultPlanGlobs(PLANS),
    ) as [GuardedPlanFile];
    // The config as the base and the handed head hold it: stories in docs/stories/.
    const read = planReadsOnTree(
      plan,
      new Set(bmad.map((e) => e.path)),
      new Map([
        [sprint, fixture(`bmad/v6/${sprint}`)],
        [config, 'implementation_artifacts: "{project-root}/docs/stories"\n'],
      ]),
    );
    if (!('reads' in read)) throw new Error('texts still needed');
    const guarded = [{ ...plan, reads: read.reads }];
    const decideGuarded = (changes: AgentChange[]) =>
      decideApply({ changes, plansDir: PLANS, base: bmad, guarded });
    const fix =
      "the plan's documents are the architect's: leave it out of the change set (an architect changes it in a pull request of its own)";
    const where = `beyond its folder, where its tool's config on the base or the handed head places it`;
    expect(decideGuarded([file(story, '- [x] 1.1 done by the agent\n')])).toEqual({
      ok: false,
      problems: [`"${story}" — the plan ${sprint} reads it ${where}; ${fix}`],
    });
    expect(decideGuarded([file('notes/1-3-plant-data-model.md')])).toEqual({
      ok: false,
      problems: [
        `"notes/1-3-plant-data-model.md" — has the name of "${story}", which the plan ${sprint} reads ${where} (a copy or a move of it is one of the plan's documents); ${fix}`,
      ],
    });
    expect(decideGuarded([{ path: 'docs/stories', deleted: true }])).toEqual({
      ok: false,
      problems: [
        `"docs/stories" — holds "${story}", which the plan ${sprint} reads ${where}; ${fix}`,
      ],
    });
    // A story named that the plan does not read, and the rest of docs/, are the agent's.
    expect(decideGuarded([file('notes/7-1-not-a-story-here.md'), file('docs/guide.md')]).ok).toBe(
      true,
    );
  });

  it('follows the plans globs of the config', () => {
    const custom = [...base, baseFile('work/features/x/tasks.md')];
    const result = decideApply({
      changes: [file('work/features/x/spec.md')],
      plansDir: PLANS,
      plans: ['work/features/*/tasks.md'],
      base: custom,
    });
    expect(result.ok).toBe(false);
  });
});
