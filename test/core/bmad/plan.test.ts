import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import picomatch from 'picomatch';
import { defaultPlanGlobs, mayBePlanDocument } from '../../../src/core/plan/kinds/index.js';
import {
  BMAD_GLOBS,
  bmadConfigSprintStatus,
  bmadDocumentsRoot,
  bmadPlanName,
  bmadReads,
  bmadSidecar,
  isSprintStatusPath,
  openBmad,
  storyFileCandidates,
  type BmadFileEdit,
} from '../../../src/core/plan/kinds/bmad/index.js';
import { repoRoot } from '../../paths.js';

/**
 * A BMAD plan, whole: sprint-status.yaml's stories as phases, each story file's tasks, the current
 * story as BMAD's workflows pick it, and the edits of a start and a completion — byte-compared to
 * golden files written from the inputs by hand (one line changed with sed, not by this code).
 */
const FIXTURES = join(repoRoot, 'test', 'fixtures', 'bmad');
const V6 = '_bmad-output/implementation-artifacts';

/** A fixture folder as a repository tree: every path under it, and each file's text. */
function tree(folder: string): { paths: string[]; texts: Map<string, string> } {
  const root = join(FIXTURES, folder);
  const texts = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else texts.set(relative(root, full).split('\\').join('/'), readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return { paths: [...texts.keys()].sort(), texts };
}

/** Opens a fixture's plan the way the loop does: what bmadReads names, read in its two steps. */
function open(folder: string, path: string) {
  const { paths, texts } = tree(folder);
  const read = new Map<string, string>();
  for (let step = 0; step < 3; step++) {
    const need = bmadReads(path, read).filter((p) => paths.includes(p) && !read.has(p));
    if (need.length === 0) break;
    for (const p of need) read.set(p, texts.get(p)!);
  }
  return { plan: openBmad(path, paths, read), paths, read };
}

const golden = (path: string) => readFileSync(join(FIXTURES, 'plan', path));
const bytes = (edit: BmadFileEdit | undefined) => Buffer.from(edit?.text ?? '', 'utf8');

describe('a v6 BMAD plan (BMAD’s own template)', () => {
  const SPRINT = `${V6}/sprint-status.yaml`;
  const { plan, paths, read } = open('v6', SPRINT);

  it('reads sprint-status.yaml and its project’s config first, then the files its stories may have', () => {
    // The config `{project-root}/_bmad/bmm/config.yaml` (`.bmad/`, `bmad/` in the alphas) may be
    // in any folder that holds the sprint status, the nearest first.
    const configs = [V6, '_bmad-output', ''].flatMap((root) =>
      ['_bmad', '.bmad', 'bmad'].map((f) => `${root ? `${root}/` : ''}${f}/bmm/config.yaml`),
    );
    expect(bmadReads(SPRINT, new Map())).toEqual([SPRINT, ...configs]);
    expect(bmadReads(SPRINT, read)).toEqual([
      SPRINT,
      ...configs,
      ...['1-1-user-authentication', '1-2-account-management', '1-3-plant-data-model'].map(
        (k) => `${V6}/${k}.md`,
      ),
      ...['2-1-personality-system', '2-2-chat-interface'].map((k) => `${V6}/${k}.md`),
    ]);
    // Only those that exist are read.
    expect(bmadReads(SPRINT, read).filter((p) => paths.includes(p))).toEqual([...read.keys()]);
  });

  it('has the stories as phases, in development_status order; epics and retrospectives are none', () => {
    expect(plan.problems).toEqual([]);
    expect(plan.phases.map((p) => [p.number, p.key, p.status, p.name, p.finished])).toEqual([
      ['1.1', '1-1-user-authentication', 'done', 'User Authentication', true],
      ['1.2', '1-2-account-management', 'ready-for-dev', 'Account Management', false],
      ['1.3', '1-3-plant-data-model', 'backlog', 'plant data model', false],
      ['2.1', '2-1-personality-system', 'backlog', 'personality system', false],
      ['2.2', '2-2-chat-interface', 'backlog', 'chat interface', false],
    ]);
  });

  it('takes the first story not done; its tasks are the boxes, nested ones and (AC: #N) kept', () => {
    expect(plan.current?.key).toBe('1-2-account-management');
    expect(plan.complete).toBe(false);
    expect(plan.waiting).toBeUndefined();
    expect(plan.current!.tasks.map((t) => [t.id, t.text, t.state, t.requirements])).toEqual([
      ['1.2/1', 'Task 1 (AC: #1)', 'todo', ['1']],
      ['1.2/1.1', 'Subtask 1.1 Add the profile form', 'todo', []],
      ['1.2/1.2', 'Subtask 1.2 Save the display name', 'todo', []],
      ['1.2/2', 'Task 2 (AC: #2, #3)', 'todo', ['2', '3']],
      ['1.2/2.1', 'Subtask 2.1 Check the current password', 'todo', []],
      ['1.2/2.2', 'Subtask 2.2 Show the refusal message', 'todo', []],
    ]);
  });

  it('a start sets the story in-progress in sprint-status.yaml: one scalar, every other byte kept', () => {
    const edits = plan.start(plan.current!);
    expect(edits.map((e) => e.path)).toEqual([SPRINT]);
    expect(bytes(edits[0]).equals(golden('start/sprint-status.yaml'))).toBe(true);
  });

  it('a completion ticks every box, and sets the story’s Status and its sprint-status value done', () => {
    const edits = plan.finish(plan.current!);
    expect(edits.map((e) => e.path)).toEqual([`${V6}/1-2-account-management.md`, SPRINT]);
    expect(bytes(edits[0]).equals(golden('finish/1-2-account-management.md'))).toBe(true);
    expect(bytes(edits[1]).equals(golden('finish/sprint-status.yaml'))).toBe(true);
  });

  it('after the completion the next story has no file: the plan waits for create-story', () => {
    const after = new Map(read);
    for (const e of plan.finish(plan.current!)) after.set(e.path, e.text);
    const next = openBmad(SPRINT, paths, after);
    expect(next.phases.find((p) => p.number === '1.2')?.finished).toBe(true);
    expect(next.current).toBeUndefined();
    expect(next.waiting).toBe(
      `Story 1-3-plant-data-model has no story file yet: BMAD's create-story (bmad-create-story) writes ${V6}/1-3-plant-data-model.md.`,
    );
    expect(next.problems).toEqual([]);
  });

  it('marks one task, or reopens it, in the story file alone', () => {
    const [edit] = plan.setTasks(plan.current!, new Set(['1.2/1.1']), 'done');
    expect(edit!.path).toBe(`${V6}/1-2-account-management.md`);
    const before = read.get(edit!.path)!;
    const changed = [...edit!.text].flatMap((c, i) => (c !== before[i] ? [i] : []));
    expect(changed).toHaveLength(1);
    expect(edit!.text.split('\n')[21]).toBe('  - [x] Subtask 1.1 Add the profile form');
    expect(plan.setTasks(plan.current!, new Set(['1.2/1.1']), 'todo')).toEqual([]);
  });

  it('gives the story file whole as the phase’s context, and links the sprint status', () => {
    const context = plan.context(plan.current!);
    expect(context.links).toEqual([
      { label: 'Story 1.2', path: `${V6}/1-2-account-management.md` },
      { label: 'Sprint status', path: SPRINT },
    ]);
    expect(context.sections).toEqual([
      {
        title: 'Story 1.2: Account Management',
        text: read.get(`${V6}/1-2-account-management.md`),
      },
    ]);
  });

  it('keeps the agent out of _bmad-output/, and of an older layout’s own folder only', () => {
    expect(bmadDocumentsRoot(SPRINT)).toBe('_bmad-output');
    expect(bmadDocumentsRoot(`apps/web/${SPRINT}`)).toBe('apps/web/_bmad-output');
    expect(bmadDocumentsRoot('docs/sprint-artifacts/sprint-status.yaml')).toBe(
      'docs/sprint-artifacts',
    );
  });
});

describe('where a BMAD plan is and what it is called', () => {
  it('is found where v6 and its alphas write sprint-status.yaml, at any depth', () => {
    const found = picomatch([...BMAD_GLOBS], { dot: true });
    expect(
      [
        `${V6}/sprint-status.yaml`,
        `apps/web/${V6}/sprint-status.yaml`,
        'docs/sprint-artifacts/sprint-status.yaml',
        'sprint-status.yaml',
        `${V6}/1-1-user-authentication.md`,
        '_bmad-output/sprint-status.yaml',
      ].filter((p) => found(p)),
    ).toEqual([
      `${V6}/sprint-status.yaml`,
      `apps/web/${V6}/sprint-status.yaml`,
      'docs/sprint-artifacts/sprint-status.yaml',
    ]);
    expect(isSprintStatusPath('x/sprint-status.yaml')).toBe(true);
    expect(isSprintStatusPath('x/my-sprint-status.yaml')).toBe(false);
  });

  it('a file under _bmad-output/ or an alpha’s docs/sprint-artifacts/ may be its document; the rest of docs/ is not', () => {
    const globs = defaultPlanGlobs('docs/plans');
    expect(
      [
        '_bmad-output/planning-artifacts/prd.md',
        `${V6}/1-2-account-management.md`,
        'apps/web/_bmad-output/planning-artifacts/epics.md',
        'docs/sprint-artifacts/1-1-setup.md',
        'docs/guide.md',
        'docs/steering/product.md',
        'src/index.ts',
      ].map((p) => mayBePlanDocument(p, globs)),
    ).toEqual([true, true, true, true, false, false, false]);
  });

  it('is named by its project folder (bmad at the root); its sidecar sits beside it', () => {
    expect(bmadPlanName(`${V6}/sprint-status.yaml`)).toBe('bmad');
    expect(bmadPlanName(`apps/web/${V6}/sprint-status.yaml`)).toBe('web');
    expect(bmadPlanName('docs/sprint-artifacts/sprint-status.yaml')).toBe('bmad');
    expect(bmadPlanName('svc/docs/sprint-artifacts/sprint-status.yaml')).toBe('svc');
    expect(bmadPlanName('planning/sprint-status.yaml')).toBe('planning');
    expect(bmadPlanName('sprint-status.yaml')).toBe('bmad');
    expect(bmadSidecar(`${V6}/sprint-status.yaml`)).toBe(`${V6}/coder-loop`);
    expect(bmadSidecar('sprint-status.yaml')).toBe('coder-loop');
  });
});

describe('real BMAD projects', () => {
  it('docvet: the first story not done is in review, so the plan waits for code review; a story file that says otherwise is warned of', () => {
    const SPRINT = `${V6}/sprint-status.yaml`;
    const { plan } = open('real-docvet', SPRINT);
    expect(plan.problems).toEqual([]);
    expect(plan.current).toBeUndefined();
    expect(plan.waiting).toBe(
      "Story 12-1-enrichment-module-cognitive-complexity-refactoring is in review: BMAD's code review (bmad-code-review) moves it to done.",
    );
    expect(plan.phases.map((p) => [p.number, p.status, p.tasks.length])).toEqual([
      ['11.1', 'done', 0],
      ['11.2', 'done', 0],
      ['11.3', 'done', 0],
      ['12.1', 'review', 0],
      ['12.2', 'backlog', 21],
      ['12.3', 'backlog', 0],
      ['12.4', 'backlog', 0],
      ['13.1', 'backlog', 0],
      ['13.2', 'backlog', 0],
      ['13.3', 'backlog', 0],
    ]);
    expect(plan.warnings.map((w) => [w.path, w.line, w.message])).toEqual([
      [
        `${V6}/12-2-non-enrichment-module-cognitive-complexity-refactoring.md`,
        3,
        'The story says "Status: review" but sprint-status.yaml says "12-2-non-enrichment-module-cognitive-complexity-refactoring: backlog"; it is read as sprint-status.yaml says, as BMAD\'s own workflows read it.',
      ],
    ]);
    const story = plan.phases.find((p) => p.number === '12.2')!;
    expect(story.name).toBe('Non-Enrichment Module Cognitive Complexity Refactoring');
    expect(story.tasks[3]).toMatchObject({
      id: '12.2/1.3',
      text: '1.3 ~~Extract `_extract_config_field`~~ — reverted during review; inline `isinstance` checks preserve type safety without `type: ignore` comments',
      state: 'done',
    });
  });

  it('docvet: completing story 12.2 changes its Status word and its sprint-status value, nothing else', () => {
    const SPRINT = `${V6}/sprint-status.yaml`;
    const STORY = `${V6}/12-2-non-enrichment-module-cognitive-complexity-refactoring.md`;
    const { plan } = open('real-docvet', SPRINT);
    const edits = plan.finish(plan.phases.find((p) => p.number === '12.2')!);
    expect(edits.map((e) => e.path)).toEqual([STORY, SPRINT]);
    expect(
      bytes(edits[0]).equals(
        golden('finish-docvet/12-2-non-enrichment-module-cognitive-complexity-refactoring.md'),
      ),
    ).toBe(true);
    expect(bytes(edits[1]).equals(golden('finish-docvet/sprint-status.yaml'))).toBe(true);
  });

  it('bmad-todo-app: story 2.3 in review holds the plan; 2.4’s file, written later, is read and warned of', () => {
    const { plan } = open('real', 'sprint-status.yaml');
    expect(plan.problems).toEqual([]);
    expect(plan.current).toBeUndefined();
    expect(plan.waiting).toMatch(
      /^Story 2-3-mark-task-complete-un-complete-with-live-task-count is in review/,
    );
    const story = plan.phases.find((p) => p.number === '2.4')!;
    expect([story.file, story.status, story.tasks.length > 0]).toEqual([
      '2-4-edit-task-title.md',
      'ready-for-dev',
      true,
    ]);
    expect(plan.warnings.map((w) => [w.path, w.message.slice(0, 40)])).toEqual([
      ['2-4-edit-task-title.md', 'The story says "Status: review" but spri'],
    ]);
  });

  it('MOAR-ATS (docs/sprint-artifacts/, v6 alpha statuses): the next story has no file yet', () => {
    const SPRINT = 'docs/sprint-artifacts/sprint-status.yaml';
    const { plan } = open('real-moar', SPRINT);
    expect(plan.problems).toEqual([]);
    expect(plan.phases.map((p) => p.number)).toEqual([
      '1.1',
      '1.2',
      '1.3',
      '1.4',
      '1.5',
      '1.6',
      '2.1',
      '2.2',
      '2.3',
    ]);
    expect(plan.current).toBeUndefined();
    expect(plan.waiting).toMatch(
      /^Story 2-1-user-registration-with-email-authentication has no story file yet/,
    );
  });
});

describe('what stops a BMAD plan', () => {
  const SPRINT = 'sprint-status.yaml';
  const sprint = (body: string) =>
    `development_status:\n  epic-1: in-progress\n${body}  epic-1-retrospective: optional\n`;
  const story = (status: string, tasks = '- [ ] Task 1 (AC: #1)\n') =>
    `# Story 1.1: One\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n${tasks}`;

  it('a story ready for dev whose file is missing', () => {
    const plan = openBmad(
      SPRINT,
      [SPRINT],
      new Map([[SPRINT, sprint('  1-1-one: ready-for-dev\n')]]),
    );
    expect(plan.current).toBeUndefined();
    expect(plan.problems.map((p) => [p.line, p.message])).toEqual([
      [3, 'Story 1-1-one is ready-for-dev but its file is missing: 1-1-one.md.'],
    ]);
  });

  it('a story file kept in a sub-folder BMAD does not look in is named, with where BMAD looks', () => {
    const texts = new Map([
      [SPRINT, sprint('  1-1-one: done\n  1-2-two: ready-for-dev\n  1-3-three: done\n')],
    ]);
    const paths = [
      SPRINT,
      'stories/1-1-one.md',
      'stories/1-2-two.md',
      'stories/1-3-three.md',
      'stories/notes.md',
    ];
    const plan = openBmad(SPRINT, paths, texts);
    // A story to work on, one warning each; the done ones, whose tasks are not needed, one for
    // their folder (a project keeping every story there gets one warning, not one a story).
    expect(plan.warnings.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        4,
        "The file of story 1-2-two is at stories/1-2-two.md, where BMAD's workflows do not look for it (they look for 1-2-two.md), so its tasks are not read.",
        'Move it to 1-2-two.md, or set story_location in sprint-status.yaml to its folder.',
      ],
      [
        3,
        "The files of 2 done stories (1-1-one, 1-3-three) are in stories/, where BMAD's workflows do not look (they look beside sprint-status.yaml); a done story's tasks are not needed, so nothing is missed.",
        'Move them beside sprint-status.yaml, or set story_location in sprint-status.yaml to stories/, for their tasks to be read.',
      ],
    ]);
    // The current story's file is still missing where BMAD looks: the start stops, as before.
    expect(plan.problems.map((p) => p.message)).toEqual([
      'Story 1-2-two is ready-for-dev but its file is missing: 1-2-two.md.',
    ]);
  });

  it('the current story’s file without a task; another story’s is only a warning', () => {
    const texts = new Map([
      [SPRINT, sprint('  1-1-one: ready-for-dev\n  1-2-two: backlog\n')],
      ['1-1-one.md', story('ready-for-dev', 'Nothing yet.\n')],
      ['1-2-two.md', '# Story 1.2: Two\n\nStatus: ready-for-dev\n'],
    ]);
    const plan = openBmad(SPRINT, [...texts.keys()], texts);
    expect(plan.current).toBeUndefined();
    expect(plan.problems.map((p) => [p.path, p.message])).toEqual([
      ['1-1-one.md', 'no task was found under "## Tasks / Subtasks".'],
    ]);
    // `Status: ready-for-dev` beside a `backlog` value is BMAD's own floor, not a disagreement.
    expect(plan.warnings.map((p) => [p.path, p.message])).toEqual([
      ['1-2-two.md', 'the story has no "## Tasks / Subtasks" section.'],
    ]);
  });

  it('two stories with one number (each then named by its key), no story at all, a file that is no YAML', () => {
    // BMAD tells stories by their whole keys (sprint_plan.py warns only of a key written twice).
    const twins = openBmad(
      SPRINT,
      [SPRINT],
      new Map([[SPRINT, sprint('  1-1-one: done\n  1-1-again: backlog\n  1-2-x: backlog\n')]]),
    );
    expect(twins.problems).toEqual([]);
    expect(twins.warnings.map((p) => [p.line, p.message])).toEqual([
      [
        4,
        '"1-1-one" and "1-1-again" both read as story 1.1, so each is a phase named by its whole key (`--phase 1-1-one`).',
      ],
    ]);
    expect(twins.phases.map((p) => [p.number, p.finished])).toEqual([
      ['1-1-one', true],
      ['1-1-again', false],
      ['1.2', false],
    ]);
    expect(twins.waiting).toMatch(/1-1-again/);
    const none = openBmad(SPRINT, [SPRINT], new Map([[SPRINT, sprint('')]]));
    expect(none.problems.map((p) => p.message)).toEqual(['`development_status` lists no story.']);
    expect(none.complete).toBe(false);
    const broken = openBmad(SPRINT, [SPRINT], new Map([[SPRINT, 'development_status: [\n']]));
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]!.message).toMatch(/is not valid YAML/);
  });

  it('a story whose status BMAD does not define (wont-do, cancelled, todo, moved-to-epic-4): set aside, with a warning', () => {
    const texts = new Map([
      [
        SPRINT,
        sprint(
          '  1-1-one: done\n  1-2-two: cancelled\n  1-3-three: moved-to-epic-4\n  1-4-four: todo\n',
        ),
      ],
      ['1-2-two.md', story('cancelled').replace('Story 1.1: One', 'Story 1.2: Two')],
    ]);
    const plan = openBmad(SPRINT, [...texts.keys()], texts);
    // No error, and no "file is missing" for a story create-story would never take.
    expect(plan.problems).toEqual([]);
    expect(plan.warnings.map((p) => [p.path, p.line, p.message, p.fix])).toEqual(
      [
        ['two', 'cancelled', 4],
        ['three', 'moved-to-epic-4', 5],
        ['four', 'todo', 6],
      ].map(([slug, raw, line]) => [
        SPRINT,
        line,
        `"${raw}" is not a status BMAD defines for a story ("1-${Number(line) - 2}-${slug}"): BMAD lists it as illegal and leaves the story out, and so does the loop (set aside: finished for the plan, never marked).`,
        'Write one of: backlog, ready-for-dev, in-progress, review, done.',
      ]),
    );
    // Finished for the plan, and told apart from the stories done (BMAD counts them in none).
    expect(plan.phases.map((p) => [p.number, p.finished, p.note])).toEqual([
      ['1.1', true, undefined],
      ['1.2', true, 'unknown status'],
      ['1.3', true, 'unknown status'],
      ['1.4', true, 'unknown status'],
    ]);
    expect(plan.phases[1]!.tasks.map((t) => t.state)).toEqual(['set-aside']);
    expect([plan.complete, plan.current, plan.waiting]).toEqual([true, undefined, undefined]);
    // With work left, the next story is taken past them.
    const next = new Map([
      [SPRINT, sprint('  1-1-one: wont-do\n  1-2-two: ready-for-dev\n')],
      ['1-2-two.md', story('ready-for-dev').replace('Story 1.1: One', 'Story 1.2: Two')],
    ]);
    expect(openBmad(SPRINT, [...next.keys()], next).current?.key).toBe('1-2-two');
  });

  it('sub-numbered keys (3-5-0-cleanup, 3-5-1-directory-manager) beside 3-5-help-overlay: each its own id', () => {
    const texts = new Map([
      [
        SPRINT,
        'development_status:\n  epic-3: done\n  3-5-help-overlay: done\n  epic-3-5: done\n  3-5-0-cleanup-existing-storage: done\n  3-5-1-directory-manager: ready-for-dev\n',
      ],
      [
        '3-5-1-directory-manager.md',
        '# Story 3.5.1: Directory Manager\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Task 1\n',
      ],
    ]);
    const plan = openBmad(SPRINT, [...texts.keys()], texts);
    expect(plan.problems).toEqual([]);
    // `epic-3-5` is no key BMAD's grammar reads: named, as before.
    expect(plan.warnings.map((p) => p.line)).toEqual([4]);
    expect(plan.phases.map((p) => [p.number, p.key])).toEqual([
      ['3.5', '3-5-help-overlay'],
      ['3.5.0', '3-5-0-cleanup-existing-storage'],
      ['3.5.1', '3-5-1-directory-manager'],
    ]);
    expect(plan.current?.tasks.map((t) => t.id)).toEqual(['3.5.1/1']);
    // Still one number for two stories: each is named by its key.
    const twins = openBmad(
      SPRINT,
      [SPRINT],
      new Map([
        [SPRINT, sprint('  1-1-0-one: backlog\n  1-1-0-again: backlog\n  1-1-x: backlog\n')],
      ]),
    );
    expect(twins.problems).toEqual([]);
    expect(twins.phases.map((p) => p.number)).toEqual(['1-1-0-one', '1-1-0-again', '1.1']);
  });

  it('an in-progress story whose file is named story-<key>.md: missing, and the near miss named', () => {
    const texts = new Map([
      [SPRINT, sprint('  1-1-one: in-progress\n')],
      ['story-1-1-one.md', story('in-progress')],
    ]);
    const plan = openBmad(SPRINT, [...texts.keys()], texts);
    expect(plan.problems.map((p) => p.message)).toEqual([
      "Story 1-1-one is in-progress but its file is missing: 1-1-one.md. story-1-1-one.md is there, but BMAD's dev-story looks for 1-1-one.md: rename it.",
    ]);
  });

  it('every story done: complete', () => {
    const texts = new Map([[SPRINT, sprint('  1-1-one: done\n')]]);
    const plan = openBmad(SPRINT, [SPRINT], texts);
    expect([plan.complete, plan.current, plan.problems]).toEqual([true, undefined, []]);
  });

  it('a backlog story with a file is ready (sprint planning’s floor); a start moves it in-progress', () => {
    const texts = new Map([
      [SPRINT, sprint('  1-1-one: backlog\n')],
      ['1-1-one.md', story('ready-for-dev')],
    ]);
    const plan = openBmad(SPRINT, [...texts.keys()], texts);
    expect(plan.current?.key).toBe('1-1-one');
    expect(plan.start(plan.current!)).toEqual([
      { path: SPRINT, text: sprint('  1-1-one: in-progress\n') },
    ]);
  });
});

describe("where BMAD's config says its sprint status is", () => {
  it('v6: {implementation_artifacts}, quoted, {project-root} the folder that holds _bmad/', () => {
    const v6 =
      'planning_artifacts: "{project-root}/docs/planning-artifacts"\nimplementation_artifacts: "{project-root}/docs/implementation-artifacts"\noutput_folder: "{project-root}/docs"\n';
    expect(bmadConfigSprintStatus('_bmad/bmm/config.yaml', v6)).toBe(
      'docs/implementation-artifacts/sprint-status.yaml',
    );
    expect(bmadConfigSprintStatus('apps/web/_bmad/bmm/config.yaml', v6)).toBe(
      'apps/web/docs/implementation-artifacts/sprint-status.yaml',
    );
  });

  it('a value written with {output_folder}, an output_folder without {project-root}', () => {
    expect(
      bmadConfigSprintStatus(
        '_bmad/bmm/config.yaml',
        "implementation_artifacts: '{output_folder}/impl' # where stories go\r\noutput_folder: out\r\n",
      ),
    ).toBe('out/impl/sprint-status.yaml');
  });

  it("the alphas: .bmad/'s {sprint_artifacts}, else {output_folder} itself", () => {
    expect(
      bmadConfigSprintStatus(
        '.bmad/bmm/config.yaml',
        "sprint_artifacts: '{project-root}/docs/sprint-artifacts'\noutput_folder: '{project-root}/docs'\n",
      ),
    ).toBe('docs/sprint-artifacts/sprint-status.yaml');
    expect(
      bmadConfigSprintStatus('bmad/bmm/config.yaml', 'output_folder: {project-root}/docs\n'),
    ).toBe('docs/sprint-status.yaml');
  });

  it('a folder outside the repository, or no folder at all: none', () => {
    expect(
      bmadConfigSprintStatus('_bmad/bmm/config.yaml', 'implementation_artifacts: /Users/me/x\n'),
    ).toBeUndefined();
    expect(bmadConfigSprintStatus('_bmad/bmm/config.yaml', 'user_name: Oliver\n')).toBeUndefined();
    expect(
      bmadConfigSprintStatus('_bmad/other/config.yaml', 'output_folder: docs\n'),
    ).toBeUndefined();
  });
});

/** A tree as the loop reads it: what bmadReads names, step by step, of the files that exist. */
function openFiles(path: string, files: Record<string, string>) {
  const paths = Object.keys(files).sort();
  const read = new Map<string, string>();
  for (let step = 0; step < 3; step++) {
    const need = bmadReads(path, read).filter((p) => paths.includes(p) && !read.has(p));
    if (need.length === 0) break;
    for (const p of need) read.set(p, files[p]!);
  }
  return { plan: openBmad(path, paths, read), read };
}

describe("where BMAD's config says the story files are", () => {
  const CONFIG = '_bmad/bmm/config.yaml';
  // As BMAD's installer writes it (v6.0.0-alpha.22: src/modules/bmm/module.yaml).
  const config = (lines: string) =>
    `# BMM Module Configuration\n# Generated by BMAD installer\n# Version: 6.0.0-alpha.22\n\nproject_name: plants\n${lines}`;
  const sprint = (body: string) =>
    `development_status:\n  epic-1: in-progress\n${body}  epic-1-retrospective: optional\n`;
  const story = (n: string, title: string, status: string) =>
    `# Story 1.${n}: ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n- [ ] Task 1 (AC: #1)\n`;

  it('alpha.22: {implementation_artifacts}, though sprint-status.yaml is elsewhere (no story_location)', () => {
    const SPRINT = 'docs/sprint-artifacts/sprint-status.yaml';
    const IA = 'docs/implementation-artifacts';
    const { plan, read } = openFiles(SPRINT, {
      [CONFIG]: config(
        'implementation_artifacts: "{project-root}/docs/implementation-artifacts"\noutput_folder: "{project-root}/docs"\n',
      ),
      [SPRINT]: sprint('  1-1-one: done\n  1-2-two: ready-for-dev\n  1-3-three: backlog\n'),
      [`${IA}/1-2-two.md`]: story('2', 'Two', 'ready-for-dev'),
    });
    expect([...read.keys()]).toEqual([SPRINT, CONFIG, `${IA}/1-2-two.md`]);
    // BMAD's create-story writes the story there, and dev-story reads it there: so does the loop.
    expect(plan.problems).toEqual([]);
    expect(plan.current?.key).toBe('1-2-two');
    expect(plan.current?.file).toBe(`${IA}/1-2-two.md`);
    expect(plan.current?.tasks.map((t) => t.id)).toEqual(['1.2/1']);
    expect(plan.warnings).toEqual([
      {
        severity: 'warning',
        path: CONFIG,
        line: 6,
        message: `implementation_artifacts is ${IA}/, where BMAD's workflows read sprint-status.yaml and write story files, but this sprint status is in docs/sprint-artifacts/: BMAD's create-story writes its story files to ${IA}/, and the loop looks there first.`,
        fix: `Move sprint-status.yaml and its story files to ${IA}/, or set implementation_artifacts: "{project-root}/docs/sprint-artifacts".`,
      },
    ]);
    // The next story waits for create-story, which writes it in {implementation_artifacts}.
    const after = openBmad(
      SPRINT,
      [...read.keys()],
      new Map([...read, ...plan.finish(plan.current!).map((e) => [e.path, e.text] as const)]),
    );
    expect(after.waiting).toBe(
      `Story 1-3-three has no story file yet: BMAD's create-story (bmad-create-story) writes ${IA}/1-3-three.md.`,
    );
    expect(after.refuseMark(after.phases[2]!, 'doing')).toContain(
      `which writes ${IA}/1-3-three.md.`,
    );
  });

  it('each version’s key, the newest first; {project-root} the folder that holds the config', () => {
    const at = (sprintStatus: string, path: string, text: string, location?: string) =>
      storyFileCandidates(sprintStatus, location, '1-1-a', { path, text });
    // v6 (alpha.20 on): {implementation_artifacts}, a leftover {sprint_artifacts} beside it.
    expect(
      at(
        `apps/web/${V6}/sprint-status.yaml`,
        `apps/web/${CONFIG}`,
        "sprint_artifacts: '{project-root}/docs/sprint-artifacts'\nimplementation_artifacts: '{output_folder}/implementation-artifacts'\noutput_folder: '{project-root}/_bmad-output'\n",
        '{project-root}/_bmad-output/implementation-artifacts',
      ),
    ).toEqual([`apps/web/${V6}/1-1-a.md`]);
    // alpha.9 to alpha.19: {sprint_artifacts}; the sprint status may be in {output_folder}.
    expect(
      at(
        'docs/sprint-status.yaml',
        '.bmad/bmm/config.yaml',
        "sprint_artifacts: '{project-root}/docs/sprint-artifacts'\noutput_folder: '{project-root}/docs'\n",
      ),
    ).toEqual(['docs/sprint-artifacts/1-1-a.md', 'docs/1-1-a.md']);
    // alpha.8: {dev_ephemeral_location}/stories.
    expect(
      at(
        '.bmad-ephemeral/sprint-status.yaml',
        '.bmad/bmm/config.yaml',
        "dev_ephemeral_location: '{project-root}/{bmad_folder}-ephemeral'\n",
      ),
    ).toEqual(['.bmad-ephemeral/stories/1-1-a.md', '.bmad-ephemeral/1-1-a.md']);
    // The first alphas: {dev_story_location}, the sprint status in {output_folder}.
    expect(
      at(
        'docs/sprint-status.yaml',
        'bmad/bmm/config.yaml',
        "dev_story_location: '{project-root}/docs/stories'\noutput_folder: '{project-root}/docs'\n",
        '{project-root}/docs/stories',
      ),
    ).toEqual(['docs/stories/1-1-a.md', 'docs/1-1-a.md']);
  });

  it('a folder outside the repository, or one the loop cannot resolve: a warning on its line', () => {
    const SPRINT = `${V6}/sprint-status.yaml`;
    const files = (value: string) => ({
      [CONFIG]: config(`implementation_artifacts: ${value}\n`),
      [SPRINT]: sprint('  1-1-one: ready-for-dev\n'),
      [`${V6}/1-1-one.md`]: story('1', 'One', 'ready-for-dev'),
    });
    const { plan } = openFiles(SPRINT, files('/Users/me/plants/stories'));
    // The story is read where the loop looks without the config: beside sprint-status.yaml.
    expect(plan.current?.key).toBe('1-1-one');
    expect(plan.warnings).toEqual([
      {
        severity: 'warning',
        path: CONFIG,
        line: 6,
        message:
          'implementation_artifacts "/Users/me/plants/stories" is an absolute path, outside the repository, so the loop cannot look where BMAD\'s create-story writes story files; it looks beside sprint-status.yaml instead.',
        fix: 'Write the folder from the project root: implementation_artifacts: "{project-root}/<folder>".',
      },
    ]);
    const why = (value: string) =>
      openFiles(SPRINT, files(value)).plan.warnings.map((w) => [
        w.line,
        w.message.split(', so ')[0],
      ]);
    expect(why('"{project-root}/../shared/stories"')).toEqual([
      [
        6,
        'implementation_artifacts "{project-root}/../shared/stories" points outside the repository',
      ],
    ]);
    expect(why("'C:\\Users\\me\\plants'")).toEqual([
      [
        6,
        'implementation_artifacts "C:\\Users\\me\\plants" is an absolute path, outside the repository',
      ],
    ]);
    expect(why('"{stories_root}/1"')).toEqual([
      [
        6,
        'implementation_artifacts "{stories_root}/1" holds {stories_root}, a placeholder the loop does not resolve',
      ],
    ]);
  });
});

describe('an epic that holds the next story up', () => {
  const SPRINT = 'sprint-status.yaml';
  const open = (body: string) => openBmad(SPRINT, [SPRINT], new Map([[SPRINT, body]]));

  it('blocked (no status BMAD defines for an epic): the waiting names it, and a story that can go first', () => {
    const plan = open(
      'development_status:\n  epic-1: done\n  1-1-one: done\n  epic-2: blocked\n  2-1-two: backlog\n  epic-3: backlog\n  3-1-three: backlog\n',
    );
    expect(plan.current).toBeUndefined();
    expect(plan.waiting).toBe(
      'Story 2-1-two has no story file yet: BMAD\'s create-story (bmad-create-story) writes 2-1-two.md. But epic-2 is "blocked" on line 4, no status BMAD defines for an epic (backlog, in-progress, done), and create-story stops on it ("Invalid epic status"): when the epic can go on, set it to backlog or in-progress; meanwhile, bmad-create-story 3-1-three (the first backlog story of an epic that can go on) writes a story the loop takes first, ready-for-dev before backlog.',
    );
    // The epic's status is told on its own line too, as before.
    expect(plan.warnings.map((w) => [w.line, w.message])).toEqual([
      [4, '"blocked" is not a status of an epic ("epic-2").'],
    ]);
  });

  it('a later story of a blocked epic (create-story does not look), every epic blocked, an epic done', () => {
    expect(
      open('development_status:\n  epic-2: on-hold\n  2-1-two: done\n  2-2-more: backlog\n')
        .waiting,
    ).toBe(
      'Story 2-2-more has no story file yet: BMAD\'s create-story (bmad-create-story) writes 2-2-more.md. But epic-2 is "on-hold" on line 2, no status BMAD defines for an epic (backlog, in-progress, done): when the epic can go on, set it to backlog or in-progress.',
    );
    expect(open('development_status:\n  epic-4: done\n  4-1-four: backlog\n').waiting).toBe(
      'Story 4-1-four has no story file yet: BMAD\'s create-story (bmad-create-story) writes 4-1-four.md. But epic-4 is "done" on line 2, and create-story writes no story in a done epic ("Cannot create story in completed epic"): set it back to in-progress, or move the story to a new epic.',
    );
    // An epic BMAD's create-story goes on with: the waiting as it was.
    expect(open('development_status:\n  epic-4: in-progress\n  4-1-four: backlog\n').waiting).toBe(
      "Story 4-1-four has no story file yet: BMAD's create-story (bmad-create-story) writes 4-1-four.md.",
    );
  });
});
