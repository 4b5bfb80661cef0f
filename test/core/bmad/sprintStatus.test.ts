import { load } from 'js-yaml';
import {
  currentStory,
  nextStory,
  readSprintStatus,
  setSprintStatus,
  StaleSprintStatusError,
  storyFileCandidates,
} from '../../../src/core/plan/kinds/bmad/index.js';
import { fixture } from '../../helpers/kinds.js';

/**
 * sprint-status.yaml as BMAD's sprint_plan.py reads it: `development_status` in order, keys by its
 * grammar, legacy v6 statuses by their modern meaning.
 */
const V6 = '_bmad-output/implementation-artifacts';
const v6 = fixture(`bmad/v6/${V6}/sprint-status.yaml`);
const legacy = fixture('bmad/legacy/docs/sprint-artifacts/sprint-status.yaml');
const real = fixture('bmad/real/sprint-status.yaml');

describe('reading sprint-status.yaml', () => {
  it('reads the template: epics, stories and retrospectives in order, story_location', () => {
    const read = readSprintStatus(v6, `${V6}/sprint-status.yaml`);
    expect(read.problems).toEqual([]);
    expect(read.storyLocation).toBe('{project-root}/_bmad-output/implementation-artifacts');
    expect(read.entries.map((e) => [e.key, e.kind, e.number, e.status, e.line])).toEqual([
      ['epic-1', 'epic', undefined, 'in-progress', 41],
      ['1-1-user-authentication', 'story', '1.1', 'done', 42],
      ['1-2-account-management', 'story', '1.2', 'ready-for-dev', 43],
      ['1-3-plant-data-model', 'story', '1.3', 'backlog', 44],
      ['epic-1-retrospective', 'retrospective', undefined, 'optional', 45],
      ['epic-2', 'epic', undefined, 'backlog', 47],
      ['2-1-personality-system', 'story', '2.1', 'backlog', 48],
      ['2-2-chat-interface', 'story', '2.2', 'backlog', 49],
      ['epic-2-retrospective', 'retrospective', undefined, 'optional', 50],
    ]);
    expect(v6.split('\n')[42]).toBe('  1-2-account-management: ready-for-dev');
    expect(currentStory(read.entries)?.key).toBe('1-2-account-management');
  });

  it('reads legacy statuses as BMAD does today: drafted, contexted, completed', () => {
    const read = readSprintStatus(legacy, 'docs/sprint-artifacts/sprint-status.yaml');
    expect(read.problems).toEqual([]);
    expect(read.entries.map((e) => [e.key, e.raw, e.status, e.number])).toEqual([
      ['epic-1', 'contexted', 'in-progress', undefined],
      ['1-1-monorepo-structure', 'done', 'done', '1.1'],
      ['1-2-database-schema', 'drafted', 'ready-for-dev', '1.2'],
      ['epic-1-retrospective', 'completed', 'done', undefined],
      ['epic-2', 'backlog', 'backlog', undefined],
      ['2-1-device-check', 'backlog', 'backlog', '2.1'],
      ['2-6a-split-story', 'backlog', 'backlog', '2.6a'],
      ['epic-2-retrospective', 'optional', 'optional', undefined],
    ]);
    expect(
      storyFileCandidates(
        'docs/sprint-artifacts/sprint-status.yaml',
        read.storyLocation,
        '1-2-database-schema',
      ),
    ).toEqual(['docs/sprint-artifacts/1-2-database-schema.md']);
  });

  it('agrees with js-yaml on every key and status (the yaml package is not the only reader)', () => {
    for (const source of [v6, legacy, real]) {
      const dev = (load(source) as { development_status: Record<string, string> })
        .development_status;
      const read = readSprintStatus(source, 'sprint-status.yaml');
      expect(Object.fromEntries(read.entries.map((e) => [e.key, e.raw]))).toEqual(dev);
      expect(read.entries.map((e) => e.key)).toEqual(Object.keys(dev));
    }
  });

  it('names what is wrong with file:line and refuses nothing silently', () => {
    const path = 'sprint-status.yaml';
    const bad = (s: string) => readSprintStatus(s, path).problems;
    expect(bad('development_status:\n  epic-1: done\n  epic-1: backlog\n')).toEqual([
      expect.objectContaining({ severity: 'error', line: 3 }),
    ]);
    expect(bad('development_status:\n  epic-1: [done\n')[0]).toMatchObject({ severity: 'error' });
    expect(bad('project: x\n')).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: 'it has no `development_status` mapping.',
      }),
    ]);
    expect(
      bad(
        'development_status:\n  1-1-a: finished\n  epic-1: started\n  notes: x\n  1-2-b:\n  1-3-c: !!str done\n',
      ),
    ).toEqual([
      // A story's value BMAD does not define: BMAD's status view lists it as illegal and goes on.
      expect.objectContaining({
        severity: 'warning',
        line: 2,
        message: expect.stringMatching(/^"finished" is not a status BMAD defines for a story/),
      }),
      expect.objectContaining({
        severity: 'warning',
        line: 3,
        message: '"started" is not a status of an epic ("epic-1").',
      }),
      expect.objectContaining({
        severity: 'warning',
        line: 4,
        message: '"notes" is no epic, story or retrospective key, so it is not read.',
      }),
      expect.objectContaining({ severity: 'error', line: 5, message: '"1-2-b" has no status.' }),
      expect.objectContaining({ severity: 'warning', line: 6 }),
    ]);
  });

  it("a letter after an epic's number (1a-1-x): not read, and why BMAD reads it no better", () => {
    const read = readSprintStatus(
      'development_status:\n  epic-1a: backlog\n  1a-1-memory: ready-for-dev\n  1-1-x: backlog\n',
      'sprint-status.yaml',
    );
    expect(read.entries.map((e) => e.key)).toEqual(['1-1-x']);
    // Both keys in one warning, on the first, each named with its line.
    expect(read.problems.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        2,
        `2 keys are no epic, story or retrospective key, so they are not read: "epic-1a" (line 2), "1a-1-memory" (line 3). BMAD's sprint planning reads no letter after an epic's number either, and lists such keys as unrecognized.`,
        "Number the epic with digits alone (`epic-2`, its stories `2-1-slug`), here and in their story files' names.",
      ],
    ]);
    // One such key alone: named on its line, as before.
    const one = readSprintStatus('development_status:\n  1a-1-memory: ready-for-dev\n', 's.yaml');
    expect(one.problems.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        2,
        `"1a-1-memory" is no epic, story or retrospective key, so it is not read: BMAD's sprint planning reads no letter after an epic's number either, and lists the key as unrecognized.`,
        "Number the epic with digits alone (`epic-2`, its stories `2-1-slug`), here and in its story files' names.",
      ],
    ]);
  });

  it('takes the first story not done as the current one, review included', () => {
    const read = readSprintStatus(real, 'sprint-status.yaml');
    expect(read.problems).toEqual([]);
    expect(currentStory(read.entries)?.key).toBe(
      '2-3-mark-task-complete-un-complete-with-live-task-count',
    );
    const done = readSprintStatus('development_status:\n  epic-1: done\n  1-1-a: done\n', 'x');
    expect(currentStory(done.entries)).toBeUndefined();
  });
});

describe('writing one status', () => {
  const read = readSprintStatus(v6, 'sprint-status.yaml');
  const entry = read.entries.find((e) => e.key === '1-2-account-management')!;

  it('changes that value alone', () => {
    const out = setSprintStatus(v6, entry, 'in-progress');
    expect(out).toBe(v6.replace('management: ready-for-dev', 'management: in-progress'));
    expect(setSprintStatus(v6, entry, 'ready-for-dev')).toBe(v6);
  });

  it('refuses a file that changed since it was read, and a status BMAD has not', () => {
    const moved = v6.replace('ready-for-dev', 'review');
    expect(() => setSprintStatus(moved, entry, 'done')).toThrow(StaleSprintStatusError);
    expect(() => setSprintStatus(v6, entry, 'finished')).toThrow('"finished" is not a status');
    const tagged = readSprintStatus('development_status:\n  1-1-a: !!str done\n', 'x').entries[0]!;
    expect(() =>
      setSprintStatus('development_status:\n  1-1-a: !!str done\n', tagged, 'review'),
    ).toThrow('is not a plain or quoted scalar; the loop does not rewrite it.');
  });
});

describe('where a story file is', () => {
  it('tries story_location, then the folder of sprint-status.yaml (dev-story’s own)', () => {
    const at = `${V6}/sprint-status.yaml`;
    expect(
      storyFileCandidates(at, '{project-root}/_bmad-output/implementation-artifacts', '1-2-a'),
    ).toEqual([`${V6}/1-2-a.md`]);
    expect(storyFileCandidates(at, 'docs/stories', '1-2-a')).toEqual([
      'docs/stories/1-2-a.md',
      `${V6}/1-2-a.md`,
    ]);
    expect(
      storyFileCandidates(at, '/Users/me/app/_bmad-output/implementation-artifacts', '1-2-a'),
    ).toEqual([`${V6}/1-2-a.md`]);
    expect(storyFileCandidates(at, '../elsewhere', '1-2-a')).toEqual([`${V6}/1-2-a.md`]);
    expect(storyFileCandidates('sprint-status.yaml', undefined, '1-2-a')).toEqual(['1-2-a.md']);
  });
});

describe('the story the loop works next', () => {
  const at = 'docs/sprint-artifacts/sprint-status.yaml';
  const entries = (yaml: string) => readSprintStatus(yaml, at).entries;
  const head =
    'story_location: docs/sprint-artifacts\ndevelopment_status:\n  epic-1: in-progress\n';

  it('is the first story not done, with the file that exists', () => {
    const read = entries(`${head}  1-1-a: done\n  1-2-b: in-progress\n  1-3-c: backlog\n`);
    const next = nextStory(read, at, 'docs/sprint-artifacts', (p) => p.endsWith('1-2-b.md'));
    expect(next).toEqual({ story: read[2], file: 'docs/sprint-artifacts/1-2-b.md' });
  });

  it('an in-progress story later in the file is resumed before an earlier backlog one', () => {
    const read = entries(
      `${head}  1-1-a: done\n  1-2-b: backlog\n  1-3-c: ready-for-dev\n  epic-2: in-progress\n  2-1-d: in-progress\n  2-2-e: in-progress\n`,
    );
    expect(currentStory(read)?.key).toBe('2-1-d');
    expect(nextStory(read, at, undefined, () => true)).toEqual({
      story: read[5],
      file: 'docs/sprint-artifacts/2-1-d.md',
    });
  });

  it('none in progress: a story in review waits, else the first ready-for-dev, else the first backlog', () => {
    const review = entries(`${head}  1-1-a: backlog\n  1-2-b: ready-for-dev\n  1-3-c: review\n`);
    expect(nextStory(review, at, undefined, () => true)).toEqual({
      story: review[3],
      waiting: "Story 1-3-c is in review: BMAD's code review (bmad-code-review) moves it to done.",
    });
    const ready = entries(
      `${head}  1-1-a: backlog\n  1-2-b: ready-for-dev\n  1-3-c: ready-for-dev\n`,
    );
    expect(currentStory(ready)?.key).toBe('1-2-b');
    const backlog = entries(`${head}  1-1-a: done\n  1-2-b: backlog\n  1-3-c: backlog\n`);
    expect(currentStory(backlog)?.key).toBe('1-2-b');
  });

  it('waits for create-story on a backlog story without a file, and takes one with a file', () => {
    const read = entries(`${head}  1-1-a: backlog\n`);
    expect(nextStory(read, at, undefined, () => false)).toEqual({
      story: read[1],
      waiting:
        "Story 1-1-a has no story file yet: BMAD's create-story (bmad-create-story) writes docs/sprint-artifacts/1-1-a.md.",
    });
    expect(nextStory(read, at, undefined, () => true)).toEqual({
      story: read[1],
      file: 'docs/sprint-artifacts/1-1-a.md',
    });
  });

  it('waits for code review on a story in review, names a missing file, and ends when all are done', () => {
    const review = entries(`${head}  1-1-a: review\n`);
    expect(nextStory(review, at, undefined, () => true)).toEqual({
      story: review[1],
      waiting: "Story 1-1-a is in review: BMAD's code review (bmad-code-review) moves it to done.",
    });
    const ready = entries(`${head}  1-1-a: ready-for-dev\n`);
    expect(nextStory(ready, at, 'docs/stories', () => false)).toEqual({
      story: ready[1],
      missing:
        'Story 1-1-a is ready-for-dev but its file is missing: docs/stories/1-1-a.md or docs/sprint-artifacts/1-1-a.md.',
    });
    expect(nextStory(entries(`${head}  1-1-a: done\n`), at, undefined, () => true)).toEqual({
      complete: true,
    });
  });
});
