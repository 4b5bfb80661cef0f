import {
  checkRunOutput,
  decodeCheckState,
  encodeCheckState,
  type CheckState,
} from '../../../src/core/index.js';

/** The `coder-loop` check run: its state in `external_id`, and the text people read. */

describe('check state', () => {
  it.each<[string, string | null | undefined, CheckState]>([
    ['no text', undefined, { node: undefined }],
    ['empty', '', { node: undefined }],
    ['a node', 'Verification', { node: 'Verification' }],
    ['a node and the next phase', 'MarkComplete;next=3', { node: 'MarkComplete', next: 3 }],
    ['an unknown node', 'Nowhere;next=2', { node: undefined, next: 2 }],
    ['a malformed next', 'Verification;next=x', { node: 'Verification' }],
    ['a prototype key is no node', 'constructor', { node: undefined }],
  ])('%s', (_name, text, expected) => {
    expect(decodeCheckState(text)).toEqual(expected);
  });

  it.each<[CheckState & { node: 'Verification' | 'MarkComplete' }, string]>([
    [{ node: 'Verification' }, 'Verification'],
    [{ node: 'MarkComplete', next: 4 }, 'MarkComplete;next=4'],
  ])('%j encodes as %s and reads back', (state, text) => {
    expect(encodeCheckState(state)).toBe(text);
    expect(decodeCheckState(text)).toEqual(state);
  });
});

describe('checkRunOutput', () => {
  it('says the node, the attempts and links the plan files at the ref', () => {
    const out = checkRunOutput(
      {
        mode: 'plan',
        node: 'Verification',
        title: 'Waiting for CI',
        next: 'CI runs.',
        attempt: { number: 1, of: 3 },
        links: [{ label: 'Checklist', path: 'docs/plans/A/01_Master Plan/01_Checklist.md' }],
      },
      'https://github.com/o/r',
      'coder/a/phase-1',
    );
    expect(out.title).toBe('Waiting for CI');
    expect(out.summary).toBe('**Verification** — CI runs.\nCI attempts failed so far: 1 of 3.');
    expect(out.text.startsWith('```mermaid\n')).toBe(true);
    expect(
      out.text.endsWith(
        '\n**Plan files**\n\n- [Checklist](https://github.com/o/r/blob/coder/a/phase-1/docs/plans/A/01_Master%20Plan/01_Checklist.md)',
      ),
    ).toBe(true);
  });

  it('without attempts or links: the summary and the flowchart only', () => {
    const out = checkRunOutput(
      { mode: 'quick', node: 'CodeReview', title: 't', next: 'Review.' },
      'https://github.com/o/r',
      'coder/quick/1',
    );
    expect(out.summary).toBe('**Code Review** — Review.');
    expect(out.text).toMatch(/^```mermaid\n[\s\S]*\n```$/);
  });
});
