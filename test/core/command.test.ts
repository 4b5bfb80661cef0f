import { HELP_TEXT, parseComment } from '../../src/core/index.js';

describe('parseComment', () => {
  it.each([
    ['/coder next', { name: 'next' }],
    ['/coder next Example', { name: 'next', plan: 'Example' }],
    ['  /CODER   Next   My Plan  ', { name: 'next', plan: 'My Plan' }],
    ['/coder next "My Plan"', { name: 'next', plan: 'My Plan' }],
    ['\n\n/coder quick\nplease hurry', { name: 'quick' }],
    ['\r\n/coder assess\r\n', { name: 'assess' }],
    ['/coder status Example', { name: 'status', plan: 'Example' }],
    ['/coder retry now', { name: 'retry' }],
    ['/coder resume', { name: 'resume' }],
    ['/coder run', { name: 'run' }],
    ['/coder run Example', { name: 'run', plan: 'Example' }],
    ['/coder stop', { name: 'stop' }],
    ['/coder stop Example', { name: 'stop' }],
    ['/coder release', { name: 'release' }],
    ['/coder help', { name: 'help' }],
    ['/coder', { name: 'help' }],
    ['\uFEFF/coder next', { name: 'next' }],
  ])('%j is a command', (body, command) => {
    expect(parseComment(body)).toEqual({ kind: 'command', command });
  });

  it.each([
    ['> /coder next', 'a quoted reply'],
    ['```\n/coder next\n```', 'a code block'],
    ['    /coder next', 'indented code'],
    ['<!-- /coder next -->', 'an HTML comment'],
    ['<!--\n/coder next\n-->', 'a multi-line HTML comment'],
    ['Thanks!\n/coder next', 'a second line'],
    ['/codernext', 'a longer word'],
    ['please /coder next', 'text before the command'],
    ['\u200B/coder next', 'a zero-width space before it'],
    ['', 'an empty comment'],
  ])('%j is no command (%s)', (body) => {
    expect(parseComment(body)).toEqual({ kind: 'none' });
  });

  it('names an unknown verb', () => {
    expect(parseComment('/coder deploy prod')).toEqual({ kind: 'unknown', verb: 'deploy' });
  });

  it.each(['../etc', 'a/b', 'x\\y', '..'])('refuses the plan name %j', (plan) => {
    expect(parseComment(`/coder next ${plan}`).kind).toBe('invalid');
  });

  it('refuses an over-long command line without reading it', () => {
    const result = parseComment(`/coder next ${'x'.repeat(600)}`);
    expect(result).toEqual({
      kind: 'invalid',
      reason: 'the command line is longer than 500 characters',
    });
  });

  it('finds the first line of a 1 MB comment', () => {
    expect(parseComment(`/coder help\n${'y'.repeat(1 << 20)}`).kind).toBe('command');
    expect(parseComment(`${' \n'.repeat(1 << 18)}/coder quick`).kind).toBe('command');
  });

  it('has help text that names every command', () => {
    for (const c of [
      'next',
      'run',
      'stop',
      'quick',
      'assess',
      'status',
      'retry',
      'resume',
      'release',
      'help',
    ]) {
      expect(HELP_TEXT).toContain(`/coder ${c}`);
    }
  });
});
