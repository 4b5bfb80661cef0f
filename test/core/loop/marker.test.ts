import {
  readMarker,
  renderMarker,
  updateMarker,
  type LoopMarker,
} from '../../../src/core/index.js';

/** The marker people see in PR bodies: read back, replaced in place, attempts listed. */

const marker: LoopMarker = { mode: 'plan', plan: 'A', phase: 1, issue: 4 };

describe('marker: read', () => {
  it.each<[string, string | null | undefined, LoopMarker | undefined]>([
    ['no text', undefined, undefined],
    ['text without a marker', 'hello', undefined],
    ['a marker', `intro\n${renderMarker(marker)}\nrest`, marker],
    ['an unclosed marker', '<!-- coder-loop {"mode":"plan","issue":1}', undefined],
    ['malformed JSON', '<!-- coder-loop {mode} -->', undefined],
    ['an unknown mode', '<!-- coder-loop {"mode":"x","issue":1} -->', undefined],
    ['an issue that is no number', '<!-- coder-loop {"mode":"quick","issue":"1"} -->', undefined],
  ])('%s', (_name, text, expected) => {
    expect(readMarker(text)).toEqual(expected);
  });

  it('escapes text that could end the comment early', () => {
    const tricky: LoopMarker = { mode: 'quick', issue: 1, vetted: { title: '-->', body: '<b>' } };
    const html = renderMarker(tricky);
    expect(html.indexOf('-->')).toBe(html.length - 3);
    expect(html).not.toMatch(/<b>/);
    expect(readMarker(html)).toEqual(tricky);
  });
});

describe('marker: update a PR body', () => {
  const sha = '0123456789abcdef'.padEnd(40, '0');
  it.each<[string, string, LoopMarker, string]>([
    [
      'a body without a marker gets one first and an empty attempts list last',
      'Body',
      marker,
      `${renderMarker(marker)}\nBody\n\n<!-- coder-loop:attempts -->\n### CI attempts\n\nNo failed attempt yet.\n<!-- /coder-loop:attempts -->`,
    ],
    [
      'a failed attempt is listed with its checks linked',
      `${renderMarker(marker)}\nBody`,
      { ...marker, attempts: [{ sha, checks: [{ name: 'ci', conclusion: 'failure', url: 'u' }] }] },
      `${renderMarker({ ...marker, attempts: [{ sha, checks: [{ name: 'ci', conclusion: 'failure', url: 'u' }] }] })}\nBody\n\n<!-- coder-loop:attempts -->\n### CI attempts\n\n1. \`0123456\` failed: [ci](u)\n<!-- /coder-loop:attempts -->`,
    ],
    [
      'an attempt without checks names its reason',
      'Body',
      { ...marker, attempts: [{ sha, checks: [], reason: 'timed out' }] },
      `${renderMarker({ ...marker, attempts: [{ sha, checks: [], reason: 'timed out' }] })}\nBody\n\n<!-- coder-loop:attempts -->\n### CI attempts\n\n1. \`0123456\` failed: timed out\n<!-- /coder-loop:attempts -->`,
    ],
  ])('%s', (_name, body, next, expected) => {
    expect(updateMarker(body, next)).toBe(expected);
  });

  it('replaces marker and attempts in place, text around them kept', () => {
    const once = updateMarker('Before\nAfter', marker);
    const next = { ...marker, phase: 2 };
    const twice = updateMarker(once, next);
    expect(twice).toBe(updateMarker('Before\nAfter', next));
    expect(readMarker(twice)).toEqual(next);
  });
});
