import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  readSprintStatus,
  readStory,
  setSprintStatus,
  setStoryStatus,
  setStoryTasks,
} from '../../../src/core/plan/kinds/bmad/index.js';
import { repoRoot } from '../../paths.js';

/**
 * BMAD's edits, byte for byte: a story's boxes ticked (dev-story's `[x]`), its `Status:` word, and
 * one sprint-status.yaml value — CRLF, tabs, quotes, comments, a flow mapping and a missing final
 * newline kept. Each expected file was written by hand from its input (the one byte or the one
 * value changed), not by the code under test.
 */
type Case =
  | { op: 'tasks'; state: 'todo' | 'done' }
  | { op: 'storyStatus'; status: string }
  | { op: 'sprint'; key: string; status: string };

const root = join(repoRoot, 'test', 'fixtures', 'bmad', 'edits');

function apply(spec: Case, input: string): string {
  switch (spec.op) {
    case 'tasks': {
      const story = readStory(input, 'story.md');
      expect(story.problems).toEqual([]);
      return setStoryTasks(input, story.tasks, spec.state);
    }
    case 'storyStatus': {
      const out = setStoryStatus(input, readStory(input, 'story.md'), spec.status);
      if (out === undefined) throw new Error('no status to write');
      return out;
    }
    case 'sprint': {
      const read = readSprintStatus(input, 'sprint-status.yaml');
      expect(read.problems).toEqual([]);
      const entry = read.entries.find((e) => e.key === spec.key)!;
      return setSprintStatus(input, entry, spec.status);
    }
  }
}

describe('BMAD golden edits: input → expected, byte for byte', () => {
  const cases = readdirSync(root).sort();

  it('has the cases: story boxes, the story status, sprint-status values', () => {
    expect(cases).toEqual([
      'sprint-done-crlf-quoted-no-final-newline',
      'sprint-done-trailing-comment',
      'sprint-flow-map',
      'sprint-start',
      'story-done-crlf',
      'story-done-no-final-newline',
      'story-done-tabs-fence',
      'story-status-done-crlf',
    ]);
  });

  it.each(cases)('%s', (name) => {
    const dir = join(root, name);
    const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as Case;
    const ext = spec.op === 'sprint' ? 'yaml' : 'md';
    const input = readFileSync(join(dir, `input.${ext}`));
    const expected = readFileSync(join(dir, `expected.${ext}`));
    const out = Buffer.from(apply(spec, input.toString('utf8')), 'utf8');
    expect(out.equals(expected)).toBe(true);
    expect(out.toString('utf8')).toBe(expected.toString('utf8'));
  });
});
