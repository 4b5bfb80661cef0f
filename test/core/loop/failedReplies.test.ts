import { reply } from '../../../src/core/index.js';

/**
 * A failure's reply puts the error's message in its own sentence: the message's closing full
 * stop (most of the loop's errors end with one) is not doubled, and the message is escaped.
 */
describe('the replies of a command, a label or an event that could not finish', () => {
  const cases: [string, string][] = [
    ['GitHub did not answer', 'GitHub did not answer.'],
    ['The tree is too large.', 'The tree is too large.'],
    ['Three dots...', 'Three dots.'],
    ['Ends with a space. ', 'Ends with a space.'],
    ['Version 1.2 of `x` is *odd*', 'Version 1\\.2 of \\`x\\` is \\*odd\\*.'],
  ];

  it.each(cases)('%j', (message, sentence) => {
    expect(reply.failed('/coder next', message)).toContain(
      `\`/coder next\` could not finish: ${sentence} Every step`,
    );
    expect(reply.labelFailed('coder:quick', message)).toContain(
      `label could not finish: ${sentence} Every step`,
    );
    expect(reply.eventFailed('pull_request.synchronize', 2, message)).toContain(
      `on pull request #2: ${sentence} Nothing was left half-done`,
    );
  });
});
