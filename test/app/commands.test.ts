import nock from 'nock';
import {
  afterScenario,
  API,
  BASE,
  beforeScenario,
  bodyOf,
  created,
  FakeRepo,
  loopPull,
  OWNER,
  permission,
  requestLog,
  sha,
  testProbot,
  writes,
} from '../helpers/github.js';
import { restError, restRef } from '../helpers/rest.js';
import { commentDelivery } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';

const eyes = (id = 492700400) =>
  nock(API)
    .post(`${BASE}/issues/comments/${id}/reactions`, { content: 'eyes' })
    .reply(201, created.reaction());
const replyMock = (issue = 1) =>
  nock(API).post(`${BASE}/issues/${issue}/comments`).reply(201, created.comment(99, issue));
const replyBody = (issue = 1) =>
  (bodyOf('POST', `/issues/${issue}/comments`) as { body: string }).body;

beforeEach(beforeScenario);
afterEach(afterScenario);

describe('who may command', () => {
  it('ignores bots, the App included: not a single request', async () => {
    const probot = await testProbot();
    await probot.receive(commentDelivery('/coder next', { login: 'coder-loop[bot]', type: 'Bot' }));
    expect(requestLog).toEqual([]);
  });

  it('ignores comments that are no command: not a single request', async () => {
    const probot = await testProbot();
    await probot.receive(commentDelivery('> /coder next\n\nI agree with this.'));
    expect(requestLog).toEqual([]);
  });

  it.each([
    ['read', 'read'],
    ['none', 'none'],
    ['read', 'triage'],
  ] as const)(
    'answers a %s user (role %s) with one short reply and writes nothing else',
    async (level, role) => {
      permission('mallory', level, role);
      replyMock();
      const probot = await testProbot();
      await probot.receive(commentDelivery('/coder next', { login: 'mallory' }));
      expect(writes()).toEqual([`POST ${BASE}/issues/1/comments`]);
      expect(replyBody()).toBe(
        '@mallory, coder-loop takes commands only from people with write access to this repository.',
      );
    },
  );

  it('accepts maintain (role_name) and admin', async () => {
    for (const [level, role] of [
      ['write', 'maintain'],
      ['admin', 'admin'],
    ] as const) {
      permission('Codertocat', level, role);
      eyes();
      replyMock();
      const probot = await testProbot();
      await probot.receive(commentDelivery('/coder help'));
    }
    expect(writes().filter((w) => w.includes('reactions'))).toHaveLength(2);
  });
});

describe('commands that only reply', () => {
  it('help: 👀 and the help text', async () => {
    permission('Codertocat', 'write');
    eyes();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder help'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toContain('| `/coder next [PlanName]` |');
  });

  it('an unknown command gets the help text', async () => {
    permission('Codertocat', 'write');
    eyes();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder deploy'));
    expect(replyBody()).toMatch(/^Unknown command `\/coder deploy`\.\n\ncoder-loop commands/);
  });

  it.each(['retry', 'resume'])('%s without a loop PR for the issue says so', async (command) => {
    permission('Codertocat', 'write');
    eyes();
    new FakeRepo(examplePlanFiles()).mount();
    nock(API)
      .get(`${BASE}/pulls`)
      .query({ state: 'open', per_page: '100', page: '1' })
      .reply(200, []);
    replyMock();
    await (await testProbot()).receive(commentDelivery(`/coder ${command}`));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toBe('There is no open coder-loop pull request for this issue.');
  });

  it('refuses a plan name with a path in it before reading anything', async () => {
    permission('Codertocat', 'write');
    eyes();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder next ../../etc'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toBe(
      'That command cannot be run: the plan name contains a path separator (`/` or `\\`).',
    );
    expect(requestLog.filter((r) => r.path.includes('/git/'))).toEqual([]);
  });

  it('assess replies with the mode and the reasons, and writes nothing else', async () => {
    permission('Codertocat', 'write');
    eyes();
    new FakeRepo(examplePlanFiles()).mount();
    replyMock();
    const event = commentDelivery('/coder assess');
    event.payload.issue.title = 'Fix typo in the README';
    event.payload.issue.body = 'Just a quick one @octocat';
    await (await testProbot()).receive(event);
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toContain('**Assessment: quick mode.**');
    expect(replyBody()).toContain('Run `/coder quick`');
  });

  it('a broken config gets a reply naming the file, key and problem, and nothing else happens', async () => {
    permission('Codertocat', 'write');
    eyes();
    new FakeRepo(examplePlanFiles(), 'master', 'maxRetries: lots\nquick:\n  maxFile: 2\n').mount();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder next'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toContain(
      '- ``.github/coder.yml:1: error: `maxRetries`: Invalid input: expected number, received string. See docs/configuration.md for every key and its type.``',
    );
    expect(replyBody()).toContain('`quick` has unknown key');
  });
});

describe('/coder next outcomes that write nothing but a reply', () => {
  it('Plan required: names each missing file, and nothing is written', async () => {
    const files = examplePlanFiles();
    delete files['docs/plans/Example/Task Plans/Phase 1 - Endpoint.md'];
    delete files['docs/plans/Example/00_context.md'];
    new FakeRepo(files).mount();
    permission('Codertocat', 'write');
    eyes();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder next Example'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toBe(
      [
        '**Plan required.** Plan `Example` is not ready for the loop; nothing was written. Fix these and run `/coder next Example` again:',
        '',
        '- ``docs/plans/Example/00_context.md: error: The plan has no 00_context.md (the source of truth). Create it with the goal, constraints and decisions of the plan (`coder-loop init "Example"` adds it, and leaves the plan\'s other files as they are).``',
        '- `docs/plans/Example/Task Plans/Phase 1.md: error: Phase 1 has no task plan, and it is the current phase. Write its steps in "Task Plans/Phase 1.md" (any name with "Phase 1" or a leading 1 works).`',
      ].join('\n'),
    );
  });

  it('a complete plan says so', async () => {
    const files = examplePlanFiles();
    files[CHECKLIST] = files[CHECKLIST]!.replace(/\[ \]/g, '[x]');
    new FakeRepo(files).mount();
    permission('Codertocat', 'write');
    eyes();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder next'));
    expect(replyBody()).toBe('Plan `Example` is complete: every task of every phase is done.');
  });

  it('lists the plans when there are several and none is named', async () => {
    const files = examplePlanFiles();
    files['docs/plans/Other/00_context.md'] = '# Other\n';
    new FakeRepo(files).mount();
    permission('Codertocat', 'write');
    eyes();
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder next'));
    expect(replyBody()).toBe(
      'Which plan? Run `/coder next <PlanName>` with one of:\n\n- `Example`\n- `Other`',
    );
  });

  it('Locked: names the branch and its PR; nothing else is written', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    permission('Codertocat', 'write');
    eyes();
    const held = sha('held');
    nock(API)
      .post(`${BASE}/git/trees`)
      .reply(201, created.tree(sha('t')))
      .post(`${BASE}/git/commits`)
      .reply(201, created.commit(sha('mine')))
      .post(`${BASE}/git/refs`)
      .reply(
        422,
        restError(
          'Reference already exists',
          'https://docs.github.com/rest/git/refs#create-a-reference',
        ),
      )
      .get(`${BASE}/git/ref/${encodeURIComponent('heads/coder/example/phase-1')}`)
      .reply(200, restRef('refs/heads/coder/example/phase-1', held))
      .get(`${BASE}/pulls`)
      .query({ head: `${OWNER}:coder/example/phase-1`, state: 'open', per_page: '100', page: '1' })
      .reply(200, [
        loopPull(
          12,
          'coder/example/phase-1',
          '<!-- coder-loop {"mode":"plan","plan":"Example","phase":1,"issue":3,"comment":111} -->',
          held,
        ),
      ]);
    replyMock();
    await (await testProbot()).receive(commentDelivery('/coder next'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/git/trees`,
      `POST ${BASE}/git/commits`,
      `POST ${BASE}/git/refs`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect(replyBody()).toBe(
      '**Locked.** Phase 1 — Endpoint of `Example` is already taken: branch `coder/example/phase-1`, pull request #12. Select the next item, or `/coder release` it.',
    );
  });
});
