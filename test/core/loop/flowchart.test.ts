import { flowchart, type NodeId } from '../../../src/core/index.js';

/** The flowchart on the check run: the mode's graph, with the current node highlighted. */

const lastLine = (text: string) => text.split('\n').at(-1);

describe('flowchart', () => {
  it.each<['plan' | 'quick', NodeId, string, string]>([
    ['plan', 'TDD', 'Start: /coder next', '    class TDD current'],
    ['plan', 'Report', 'Start: /coder next', '    class MarkComplete current'],
    ['plan', 'Escalate', 'Start: /coder next', '    class Escalate current'],
    ['quick', 'QuickMode', 'Start: coder:quick or /coder quick', '    class QuickMode current'],
    ['quick', 'Verification', 'Run basic tests: CI', '    class Verification current'],
  ])('%s at %s', (mode, node, shows, highlight) => {
    const text = flowchart(mode, node);
    expect(text.startsWith('flowchart TD\n')).toBe(true);
    expect(text).toContain(shows);
    expect(lastLine(text)).toBe(highlight);
    expect(text.match(/^ {4}class /gm)).toHaveLength(1);
  });

  it('the quick graph has no plan node', () => {
    expect(flowchart('quick', 'End')).not.toContain('Context valid?');
  });
});
