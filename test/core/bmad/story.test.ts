import {
  acceptanceCriteria,
  readStory,
  setStoryStatus,
  setStoryTasks,
  StaleStoryError,
  storyDisagreement,
  readSprintStatus,
} from '../../../src/core/plan/kinds/bmad/index.js';
import { fixture } from '../../helpers/kinds.js';

/**
 * A story file as BMAD's template writes it and dev-story works it: the `Status:` line, and the
 * boxes of `## Tasks / Subtasks`, nested subtasks and review follow-ups included, `(AC: #N)` kept.
 */
const IA = 'bmad/v6/_bmad-output/implementation-artifacts';
const template = fixture(`${IA}/1-2-account-management.md`);
const worked = fixture(`${IA}/1-1-user-authentication.md`);
const real = fixture('bmad/real/2-4-edit-task-title.md');

const shape = (story: ReturnType<typeof readStory>) =>
  story.tasks.map((t) => [t.id, t.parent, t.depth, t.state, t.requirements, t.text]);

describe('reading a story', () => {
  it('reads the template: number, title, status, tasks with subtasks and their ACs', () => {
    const story = readStory(template, '1-2-account-management.md');
    expect(story.problems).toEqual([]);
    expect([story.number, story.title, story.status?.raw, story.status?.line]).toEqual([
      '1.2',
      'Account Management',
      'ready-for-dev',
      3,
    ]);
    expect(story.tasksLine).toBe(19);
    expect(shape(story)).toEqual([
      ['1', undefined, 0, 'todo', ['1'], 'Task 1 (AC: #1)'],
      ['1.1', '1', 1, 'todo', [], 'Subtask 1.1 Add the profile form'],
      ['1.2', '1', 1, 'todo', [], 'Subtask 1.2 Save the display name'],
      ['2', undefined, 0, 'todo', ['2', '3'], 'Task 2 (AC: #2, #3)'],
      ['2.1', '2', 1, 'todo', [], 'Subtask 2.1 Check the current password'],
      ['2.2', '2', 1, 'todo', [], 'Subtask 2.2 Show the refusal message'],
    ]);
    for (const t of story.tasks) expect(template[t.markOffset]).toBe(' ');
    expect(template.split('\n')[story.tasks[3]!.line - 1]).toBe('- [ ] Task 2 (AC: #2, #3)');
  });

  it('reads a worked story: review follow-ups are tasks, a box in the Dev Notes is not', () => {
    const story = readStory(worked, '1-1-user-authentication.md');
    expect(story.problems).toEqual([]);
    expect(story.status?.raw).toBe('done');
    expect(shape(story).map((s) => s.slice(0, 4))).toEqual([
      ['1', undefined, 0, 'done'],
      ['1.1', '1', 1, 'done'],
      ['2', undefined, 0, 'done'],
      ['2.1', '2', 1, 'done'],
      ['3', undefined, 0, 'done'],
    ]);
    expect(story.tasks[4]!.text).toBe(
      '[AI-Review][Med] Rate-limit failed sign-ins [src/auth.ts:42]',
    );
  });

  it('reads a real story: bold task names, unnumbered subtasks, a code fence in a task', () => {
    // test/fixtures/bmad/README.md names the repository this excerpt comes from.
    const story = readStory(real, '2-4-edit-task-title.md');
    expect(story.problems).toEqual([]);
    expect(story.status?.raw).toBe('review');
    expect(shape(story).map((s) => s.slice(0, 5))).toEqual([
      ['1', undefined, 0, 'done', ['2', '5']],
      ['1.1', '1', 1, 'done', []],
      ['2', undefined, 0, 'done', ['2']],
      ['2.1', '2', 1, 'done', []],
      ['2.2', '2', 1, 'done', []],
      ['6', undefined, 0, 'done', ['1', '2', '3', '4', '5']],
      ['6.1', '6', 1, 'done', []],
      ['6.1.1', '6.1', 2, 'done', []],
      ['6.1.2', '6.1', 2, 'done', []],
    ]);
  });

  it('gives an unnumbered task its place, never an id a written one has', () => {
    const source = [
      '## Tasks / Subtasks',
      '',
      '- [ ] Write the form',
      '- [ ] Task 1 (AC: #1) the written one',
      '- [ ] Third',
      '',
      '### Review Follow-ups (AI)',
      '',
      '- [ ] [AI-Review][High] Fix it',
      '',
    ].join('\n');
    const story = readStory(source, 's.md');
    expect(story.problems).toEqual([]);
    expect(story.tasks.map((t) => t.id)).toEqual(['2', '1', '3', '4']);
  });

  it('names lookalike boxes in the Tasks section with file:line, and nothing outside it', () => {
    const source = [
      '# Story 1.3: X',
      '',
      '## Tasks / Subtasks',
      '',
      '- [ ] Task 1',
      '-[ ] Task 2',
      '- [~] Task 3',
      '',
      '## Dev Notes',
      '',
      '-[ ] a note',
      '',
    ].join('\n');
    const story = readStory(source, 's.md');
    expect(story.tasks.map((t) => t.id)).toEqual(['1']);
    expect(story.problems).toEqual([
      expect.objectContaining({ severity: 'warning', path: 's.md', line: 6 }),
      expect.objectContaining({ severity: 'warning', path: 's.md', line: 7 }),
    ]);
    expect(story.problems[1]!.message).toContain('"[~]" is not a box this plan reads');
  });

  it('a story whose boxes have no space after the bracket (as BMAD’s dev agent writes some)', () => {
    const source = [
      '# Story 1.6: Shell',
      '',
      'Status: done',
      '',
      '## Tasks / Subtasks',
      '',
      '- [x] Task 1: Install lucide-react (AC: 2)',
      '  - [x] 1.1 Install it',
      '',
      '- [x]Task 2: Create GET /api/channels (AC: 1, 4)',
      '  - [x]2.1 Create `channelRoutes.ts`',
      '  - [ ]2.2 Register the plugin',
      '  - [x](https://example.com) a link, no box',
      '',
    ].join('\r\n');
    const story = readStory(source, 's.md');
    // A link right after the bracket is no box: named, as every lookalike is.
    expect(story.problems).toEqual([
      expect.objectContaining({ severity: 'warning', path: 's.md', line: 13 }),
    ]);
    expect(shape(story)).toEqual([
      ['1', undefined, 0, 'done', ['2'], 'Task 1: Install lucide-react (AC: 2)'],
      ['1.1', '1', 1, 'done', [], '1.1 Install it'],
      ['2', undefined, 0, 'done', ['1', '4'], 'Task 2: Create GET /api/channels (AC: 1, 4)'],
      ['2.1', '2', 1, 'done', [], '2.1 Create `channelRoutes.ts`'],
      ['2.2', '2', 1, 'todo', [], '2.2 Register the plugin'],
    ]);
    // The mark is still one byte: ticking 2.2 changes the space between its brackets alone.
    const open = story.tasks.filter((t) => t.state === 'todo');
    expect(setStoryTasks(source, open, 'done')).toBe(
      source.replace('  - [ ]2.2 Register', '  - [x]2.2 Register'),
    );
  });

  it('a story whose Tasks heading carries more words (## 任务 / 子任务 (Tasks / Subtasks))', () => {
    const source =
      '# Story 1.4: 存档\n\nStatus: review\n\n## 验收标准\n\n1. 存档\n\n## 任务 / 子任务 (Tasks / Subtasks)\n\n- [x] 建立合同证据。 (AC: 1, 2)\n  - [ ] 子任务\n\n## 开发说明\n\n- [ ] 不是任务\n';
    const story = readStory(source, 's.md');
    expect(story.problems).toEqual([]);
    expect(story.tasksLine).toBe(9);
    expect(shape(story)).toEqual([
      ['1', undefined, 0, 'done', ['1', '2'], '建立合同证据。 (AC: 1, 2)'],
      ['1.1', '1', 1, 'todo', [], '子任务'],
    ]);
  });

  it('a story whose Tasks heading is in another language (## 任务 / 子任务): the first section with boxes, named in a warning', () => {
    const source =
      '# Story 1.4: 存档\n\nStatus: done\n\n## 验收标准\n\n1. 存档\n\n## 任务 / 子任务\n\n- [x] 建立合同证据。 (AC: 1, 2)\n- [x] [Review][Patch] 修复\n\n## 开发说明\n\n- [ ] 不是任务\n';
    const story = readStory(source, 's.md');
    expect(story.problems).toEqual([
      {
        severity: 'warning',
        path: 's.md',
        line: 9,
        message:
          'no heading says "Tasks / Subtasks", so the boxes under "## 任务 / 子任务", the first section that has any, are read as the story\'s tasks.',
        fix: 'Head the section "## Tasks / Subtasks" (a translation may follow it).',
      },
    ]);
    expect(story.tasks.map((t) => [t.id, t.state, t.line])).toEqual([
      ['1', 'done', 11],
      ['2', 'done', 12],
    ]);
  });

  it.each([
    ['## Acceptance Criteria', 'English'],
    ['## Definition of Done', 'English'],
    ['## 验收标准', 'Chinese'],
    ["## Critères d'acceptation", 'French'],
    ['## Kryteria akceptacji', 'Polish'],
  ])(
    'never reads the boxes of "%s" as tasks (%s): a story without a tasks section has none',
    (heading) => {
      const source = `# Story 1.1: T\n\nStatus: ready-for-dev\n\n${heading}\n\n- [ ] Report sums invoices\n- [ ] Empty state shows 0\n\n## Technical Implementation\n\nText.\n`;
      const story = readStory(source, 's.md');
      expect(story.tasks).toEqual([]);
      expect(story.problems).toEqual([
        expect.objectContaining({
          severity: 'error',
          line: 1,
          message: 'the story has no "## Tasks / Subtasks" section.',
        }),
      ]);
      // A section after it that holds boxes is still the tasks of a story in another language.
      const more = readStory(`${source}\n## 任务\n\n- [ ] 建立\n`, 's.md');
      expect(more.tasks.map((t) => t.text)).toEqual(['建立']);
    },
  );

  it('is an error without a Tasks section or without a task in it; duplicate ids are named', () => {
    expect(readStory('# Story 1.1: X\n\nStatus: done\n', 's.md').problems).toEqual([
      expect.objectContaining({ severity: 'error', line: 1 }),
    ]);
    expect(readStory('## Tasks / Subtasks\n\nNone yet.\n', 's.md').problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 1,
        message: 'no task was found under "## Tasks / Subtasks".',
      }),
    ]);
    const twice = readStory('## Tasks\n\n- [ ] Task 1\n- [ ] Task 1 again\n', 's.md');
    expect(twice.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        line: 4,
        message: 'Task id 1 is also on line 3.',
      }),
    ]);
  });
});

describe('the acceptance criteria a task cites', () => {
  it.each([
    ['Task 1 (AC: #1)', ['1']],
    ['Task 1 (AC: #)', []],
    ['Task 2 (AC: #2, #3)', ['2', '3']],
    ['**Task 1: Backend** (AC: AC2, AC5)', ['2', '5']],
    ['**Task 6: Tests** (AC: AC1–AC5)', ['1', '2', '3', '4', '5']],
    ['Task 3 (AC: 1 and 4) (ACs: 2)', ['1', '4', '2']],
    ['Task 4 (see AC 1)', []],
  ])('%s', (text, expected) => {
    expect(acceptanceCriteria(text)).toEqual(expected);
  });
});

describe('writing a story', () => {
  const story = readStory(template, 's.md');

  it('ticks tasks one byte each, and reopens them', () => {
    const done = setStoryTasks(template, story.tasks.slice(0, 3), 'done');
    expect(done.length).toBe(template.length);
    const changed = [...template].flatMap((c, i) => (c === done[i] ? [] : [i]));
    expect(changed).toEqual(story.tasks.slice(0, 3).map((t) => t.markOffset));
    const again = readStory(done, 's.md');
    expect(setStoryTasks(done, again.tasks, 'todo')).toBe(template);
  });

  it('refuses a box that moved since it was read', () => {
    expect(() => setStoryTasks(`x${template}`, story.tasks, 'done')).toThrow(StaleStoryError);
  });

  it('writes the Status word alone, and nothing when it is not one word', () => {
    expect(setStoryStatus(template, story, 'done')).toBe(
      template.replace('Status: ready-for-dev', 'Status: done'),
    );
    const bold = '# Story 1.1: X\n\n**Status:** review  \n\n## Tasks\n\n- [ ] a\n';
    const read = readStory(bold, 's.md');
    expect(read.status?.raw).toBe('review');
    expect(setStoryStatus(bold, read, 'done')).toBe(bold.replace('review', 'done'));
    // A word in bold, and an emoji after it: the word is the status, rewritten alone.
    const marked = '# Story 1.1: X\n\nStatus: **done** ✅\n\n## Tasks\n\n- [x] a\n';
    const emoji = readStory(marked, 's.md');
    expect(emoji.status?.raw).toBe('done');
    expect(setStoryStatus(marked, emoji, 'review')).toBe(marked.replace('done', 'review'));
    // An HTML comment after the word: the word is the status, the comment stays as written.
    const commented =
      '# Story 3.2: X\n\nStatus: **done**  <!-- E2E: 40/40 ✅ -->\n\n## Tasks\n\n- [x] a\n';
    const note = readStory(commented, 's.md');
    expect(note.status?.raw).toBe('done');
    expect(setStoryStatus(commented, note, 'review')).toBe(
      commented.replace('**done**', '**review**'),
    );
    const words = readStory('Status: Ready for Review\n\n## Tasks\n\n- [ ] a\n', 's.md');
    expect(words.status?.raw).toBe('Ready for Review');
    expect(setStoryStatus('Status: Ready for Review\n', words, 'done')).toBeUndefined();
  });
});

describe('a story file and sprint-status.yaml that disagree', () => {
  const sprint = readSprintStatus(fixture('bmad/real/sprint-status.yaml'), 'sprint-status.yaml');
  const entry = sprint.entries.find((e) => e.key === '2-4-edit-task-title')!;

  it('is read as sprint-status.yaml says, with a warning', () => {
    const story = readStory(real, 'real.md');
    expect(storyDisagreement(entry, story, 'real.md')).toEqual([
      {
        severity: 'warning',
        path: 'real.md',
        line: 3,
        message:
          'The story says "Status: review" but sprint-status.yaml says "2-4-edit-task-title: ready-for-dev"; it is read as sprint-status.yaml says, as BMAD\'s own workflows read it.',
        fix: 'Write "Status: ready-for-dev" (or correct sprint-status.yaml).',
      },
    ]);
  });

  it("not when the line says the same in other words: in capitals, with marks after it, or an alpha's status", () => {
    const at = (raw: string, status: string) => ({ ...entry, raw, status });
    const said = (line: string) =>
      readStory(`# Story 2.4: X\n\n${line}\n\n## Tasks\n\n- [ ] a\n`, 's.md');
    expect(
      storyDisagreement(
        at('in-progress', 'in-progress'),
        said('Status: **IN PROGRESS** ⏳ (AC6 pending)'),
        's.md',
      ),
    ).toEqual([]);
    // sprint-status.yaml's `drafted` is read as ready-for-dev, and so is the story's.
    expect(
      storyDisagreement(at('drafted', 'ready-for-dev'), said('Status: drafted'), 's.md'),
    ).toEqual([]);
    expect(storyDisagreement(at('done', 'done'), said('Status: completed'), 's.md')).toEqual([]);
    expect(storyDisagreement(at('done', 'done'), said('Status: Ready for Review'), 's.md')).toEqual(
      [
        expect.objectContaining({
          line: 3,
          fix: 'Write "Status: done" (or correct sprint-status.yaml).',
        }),
      ],
    );
  });

  it('but not for the state dev-story itself leaves: ready-for-dev in the story, in-progress in the file', () => {
    const started = { ...entry, raw: 'in-progress', status: 'in-progress' };
    const story = readStory(template, 's.md');
    expect(storyDisagreement(started, { ...story, number: '2.4' }, 's.md')).toEqual([]);
    expect(storyDisagreement(started, story, 's.md')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('"Story 1.2"') }),
    ]);
  });
});
