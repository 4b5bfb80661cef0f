import { sign } from '@octokit/webhooks-methods';
import { examplePayload } from '../test/helpers/payloads.js';

/**
 * The load generator of the webhook-server benchmark, in its own process (as `wrk` would be): it
 * signs real example payloads, posts them over loopback with the given concurrency and reports
 * each delivery's round trip. Run by `bench/server.ts` through `fork`; not a command of its own.
 */

export interface LoadRequest {
  url: string;
  secret: string;
  /** Head sha of the loop PR's branch, for the CI events. */
  branch: string;
  head: string;
  total: number;
  concurrency: number;
  /** Stop sending after this many seconds (deliveries under way are still waited for). */
  seconds?: number;
}
export interface LoadResult {
  seconds: number;
  latencies: { kind: string; ms: number }[];
}

/** The mix of events: commands, plain comments, a bot's comment, CI results on the loop PR. */
export const KINDS = [
  '/coder help',
  '/coder status',
  'comment, no command',
  'bot comment',
  'CI on the loop PR',
] as const;

function make(kind: (typeof KINDS)[number], request: LoadRequest) {
  switch (kind) {
    case '/coder help':
      return comment('/coder help', 'Codertocat');
    case '/coder status':
      return comment('/coder status', 'alice');
    case 'comment, no command':
      return comment('Looks good to me', 'alice');
    case 'bot comment':
      return comment('/coder next', 'dependabot[bot]', 'Bot');
    case 'CI on the loop PR': {
      const p = examplePayload('check_suite', 'completed');
      p.check_suite.head_branch = request.branch;
      p.check_suite.head_sha = request.head;
      return { name: 'check_suite', payload: p };
    }
  }
}

function comment(body: string, login: string, type = 'User') {
  const p = examplePayload('issue_comment', 'created');
  p.comment.body = body;
  p.comment.user.login = login;
  p.comment.user.type = type;
  p.sender.login = login;
  p.sender.type = type;
  delete p.issue.pull_request;
  return { name: 'issue_comment', payload: p };
}

let delivery = 0;
export async function deliver(
  url: string,
  secret: string,
  name: string,
  payload: unknown,
): Promise<void> {
  const body = JSON.stringify(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': name,
      'x-github-delivery': `bench-${process.pid}-${++delivery}`,
      'x-hub-signature-256': await sign(secret, body),
    },
    body,
  });
  await response.text();
  if (response.status >= 300) throw new Error(`delivery answered ${response.status}`);
}

export async function load(request: LoadRequest): Promise<LoadResult> {
  // Signed bodies are prepared first: the clock measures the server, not the generator.
  const prepared = Array.from({ length: request.total }, (_, i) => {
    const kind = KINDS[i % KINDS.length]!;
    return { kind, ...make(kind, request) };
  });
  const latencies: LoadResult['latencies'] = [];
  let next = 0;
  const began = performance.now();
  const until = request.seconds === undefined ? Infinity : began + request.seconds * 1000;
  await Promise.all(
    Array.from({ length: request.concurrency }, async () => {
      while (next < prepared.length && performance.now() < until) {
        const { kind, name, payload } = prepared[next++]!;
        const t = performance.now();
        await deliver(request.url, request.secret, name, payload);
        latencies.push({ kind, ms: performance.now() - t });
      }
    }),
  );
  return { seconds: (performance.now() - began) / 1000, latencies };
}

if (process.send) {
  process.on('message', (request: LoadRequest) => {
    load(request).then(
      (result) => process.send!({ result }),
      (error: unknown) => process.send!({ error: String(error) }),
    );
  });
}
