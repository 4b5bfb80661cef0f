import nock from 'nock';
import { afterScenario, beforeScenario, requestLog, testProbot } from '../helpers/github.js';
import { commentDelivery } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';
import { SimGitHub } from '../sim/github.js';

/** Hostile input: each case gets a clear message (or is ignored) and nothing half-written. */

async function world(extra: Record<string, string> = {}) {
  const sim = new SimGitHub({ ...examplePlanFiles(), ...extra });
  sim.mount();
  sim.permissions.set('Codertocat', 'write');
  return { sim, probot: await testProbot() };
}

async function say(body: string, extra: Record<string, string> = {}) {
  const { sim, probot } = await world(extra);
  const event = commentDelivery(body);
  delete event.payload.issue.pull_request;
  await probot.receive(event);
  return sim;
}

const writes = () =>
  requestLog.filter((r) => r.method !== 'GET' && !r.path.includes('/access_tokens'));

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

describe('hostile comments', () => {
  it.each([
    ['a zero-width space before the command', '\u200B/coder next'],
    ['a zero-width joiner inside it', '/cod\u200Der next'],
    ['an HTML comment hiding the command', '<!-- /coder next -->'],
    ['a multi-line HTML comment', '<!--\n/coder next\n-->'],
    ['a quoted command', '> /coder next'],
    ['a command in a code fence', '```\n/coder next\n```'],
    ['a 1 MB body with the command at the end', `${'x'.repeat(1 << 20)}\n/coder next`],
  ])('%s is no command: not a single request', async (_name, body) => {
    await say(body);
    expect(requestLog).toEqual([]);
  });

  it('a 1 MB body after a command: only its first line is read', async () => {
    const sim = await say(`/coder help\n${'y'.repeat(1 << 20)}`);
    expect(sim.comments.map((c) => c.body.split('\n')[0])).toEqual([
      'coder-loop commands (the first line of a comment):',
    ]);
  });

  it.each([
    ['../etc', 'the plan name contains a path separator (`/` or `\\`)'],
    ['%2e%2e', 'the plan name contains an encoded path character'],
    ['a\u0000b', 'the plan name contains a control character'],
    ['..', 'the plan name contains ".."'],
  ])('the plan name %j is refused before anything is read', async (name, reason) => {
    const sim = await say(`/coder next ${name}`);
    expect(sim.comments.map((c) => c.body)).toEqual([`That command cannot be run: ${reason}.`]);
    expect(requestLog.filter((r) => r.path.includes('/git/'))).toEqual([]);
  });

  it('a newline ends the command line: the rest is not part of the plan name', async () => {
    const sim = await say('/coder next Example\n../../etc/passwd');
    expect(sim.pulls.map((p) => p.head)).toEqual(['coder/example/phase-1']);
  });
});

describe('hostile repository content', () => {
  it('a YAML alias bomb in .github/coder.yml gets a message naming the file; nothing is written', async () => {
    const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 0; i < 9; i++) {
      const p = String.fromCharCode(97 + i);
      const n = String.fromCharCode(98 + i);
      bomb.push(`${n}: &${n} [*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p}]`);
    }
    bomb.push('architects: *j');
    const sim = await say('/coder next', { '.github/coder.yml': bomb.join('\n') });
    expect(sim.comments).toHaveLength(1);
    // The aliases are not expanded: the problems name the file and line, in a short reply.
    expect(sim.comments[0]!.body).toMatch(
      /^The coder-loop config is invalid, so nothing was done:\n\n- ``\.github\/coder\.yml:1: error: The top level has unknown keys `a`/,
    );
    expect(sim.comments[0]!.body).toContain('.github/coder.yml:11: error: `architects.0`');
    expect(sim.comments[0]!.body.length).toBeLessThan(4000);
    expect(writes().map((w) => w.path)).toEqual([
      '/repos/Codertocat/Hello-World/issues/comments/492700400/reactions',
      '/repos/Codertocat/Hello-World/issues/1/comments',
    ]);
  });

  it('a checklist of 100,000 tasks is refused with a clear message, before parsing', async () => {
    const huge = `## Phase 1\n${'- [ ] t\n'.repeat(100_000)}`;
    const sim = await say('/coder next', { [CHECKLIST]: huge });
    expect(sim.comments.map((c) => c.body)).toEqual([
      expect.stringContaining(
        '`docs/plans/Example/01_Master Plan/01_Checklist.md:60002: error: The file has more than 60,000 list items. Split the plan, or flatten the nesting.`',
      ),
    ]);
    expect(sim.refs.size).toBe(1);
  });

  it('a checklist nested 10,000 levels deep is refused with the line', async () => {
    const deep = `## Phase 1\n${'>'.repeat(10_000)} - [ ] deep\n`;
    const sim = await say('/coder next', { [CHECKLIST]: deep });
    expect(sim.comments[0]!.body).toContain(
      '01_Checklist.md:2: error: Line 2 is nested more than 40 levels deep.',
    );
    expect(sim.refs.size).toBe(1);
  });
});
