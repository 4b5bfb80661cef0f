import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import { load } from 'js-yaml';
import { dispatchPayload, examplePayload, reviewRelayRun } from '../helpers/payloads.js';
import { repoRoot } from '../paths.js';

/**
 * The concurrency groups of the workflows users copy, evaluated as GitHub does (its own
 * expression library, @actions/expressions) on real event payloads. GitHub keeps one pending run
 * per group and cancels it when another run of the group is queued: whoever can queue a run in
 * a group can cancel the pending one. So an event anyone may cause (a comment, a review) must
 * never share a group with an event the loop must hear, nor a dispatch a writer sends with the
 * loop's own hand-off.
 */
const groupOf = (file: string) =>
  (
    load(readFileSync(join(repoRoot, 'examples/workflows', file), 'utf8')) as {
      concurrency: { group: string };
    }
  ).concurrency.group;

/** `text` with each `${{ … }}` evaluated in the `github` context of `event` and `payload`. */
function evaluate(text: string, event: string, payload: unknown): string {
  const github = JSON.parse(
    JSON.stringify({ event_name: event, event: payload, run_id: '1001' }),
    data.reviver,
  ) as data.Dictionary;
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => {
    const lexed = new Lexer(expr).lex();
    const ast = new Parser(lexed.tokens, ['github'], []).parse();
    const context = new data.Dictionary({ key: 'github', value: github });
    return new Evaluator(ast, context).evaluate().coerceString();
  });
}

const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const BRANCH = 'coder/example/phase-1';

describe('the loop’s group: nothing anyone may cause cancels an event the loop must hear', () => {
  const loop = (event: string, payload: unknown) =>
    evaluate(groupOf('coder-loop.yml'), event, payload);
  /** CI's workflow_run for the loop PR #2: GitHub names the PR. */
  const ci = () => {
    const payload = reviewRelayRun(BRANCH, SHA, 'Codertocat');
    payload.workflow_run.name = 'CI';
    payload.workflow_run.event = 'pull_request';
    return payload;
  };
  const comment = (id: number, login: string) => {
    const payload = examplePayload('issue_comment', 'created');
    payload.issue.number = 2;
    payload.comment.id = id;
    payload.comment.user.login = login;
    payload.comment.body = '/coder status';
    return payload;
  };
  const relay = (id: number, reviewer: string) => {
    const payload = reviewRelayRun(BRANCH, SHA, reviewer);
    payload.workflow_run.id = id;
    return payload;
  };

  it('CI of the loop PR and a push to it share the PR’s group', () => {
    const push = examplePayload('pull_request', 'synchronize');
    push.pull_request.number = 2;
    expect(loop('workflow_run', ci())).toBe('coder-loop-2');
    expect(loop('pull_request_target', push)).toBe('coder-loop-2');
  });

  it('a comment (anyone’s, on a public repository) runs in a group of its own', () => {
    const outsider = loop('issue_comment', comment(7001, 'outsider'));
    expect(outsider).not.toBe(loop('workflow_run', ci()));
    expect(outsider).not.toBe(loop('workflow_run', relay(5001, 'reviewer1')));
    expect(outsider).not.toBe(loop('issue_comment', comment(7002, 'outsider')));
  });

  it('a relayed review (anyone’s, on a public repository) runs in a group of its own', () => {
    const review = loop('workflow_run', relay(5001, 'reviewer1'));
    expect(review).not.toBe(loop('workflow_run', ci()));
    expect(review).not.toBe(loop('workflow_run', relay(5002, 'outsider')));
  });
});

describe('the agent’s group: a dispatch a writer sends never cancels the loop’s pending hand-off', () => {
  const agent = (sender: string) => {
    const payload = dispatchPayload({ branch: BRANCH }, { owner: 'o', repo: 'r' });
    payload.sender.login = sender;
    return evaluate(groupOf('coder-agent.yml'), 'repository_dispatch', payload);
  };
  it('the loop’s hand-offs of one branch share a group; a writer’s dispatch for it does not', () => {
    expect(agent('coder-loop[bot]')).toBe(agent('coder-loop[bot]'));
    expect(agent('coder-loop[bot]')).toContain(BRANCH);
    expect(agent('mallory')).not.toBe(agent('coder-loop[bot]'));
    expect(agent('github-actions[bot]')).not.toBe(agent('coder-loop[bot]'));
  });
});
