import { escalationStood } from '../../../src/core/index.js';

describe("the escalation in the PR's history", () => {
  const labeled = (actor: string) => ({ event: 'labeled', label: 'coder:escalated', actor });
  const unlabeled = (actor: string) => ({ event: 'unlabeled', label: 'coder:escalated', actor });
  it.each<[string, { event: string; label?: string; actor?: string }[], boolean, boolean]>([
    ['never labelled', [], false, false],
    ['labelled by the loop', [labeled('loop[bot]')], true, true],
    ['labelled by someone else', [labeled('alice')], false, false],
    ['taken off by someone else', [labeled('loop[bot]'), unlabeled('alice')], true, true],
    // With a shared identity, any writer's job removes the label as the loop does.
    ['taken off as the loop', [labeled('LOOP[bot]'), unlabeled('loop[bot]')], false, true],
    ['another label', [{ ...labeled('loop[bot]'), label: 'bug' }], false, false],
  ])('%s → stands: own identity %s, shared %s', (_, events, own, shared) => {
    expect(escalationStood(events, 'loop[bot]', false)).toBe(own);
    expect(escalationStood(events, 'loop[bot]', true)).toBe(shared);
  });
});
