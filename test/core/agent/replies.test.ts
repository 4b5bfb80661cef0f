import {
  agentCommitMessage,
  agentReply,
  agentTrailer,
  buildAgentPayload,
  escapeInline,
  escapeSummary,
} from '../../../src/core/index.js';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const payload = buildAgentPayload({
  node: 'tdd',
  repo: { owner: 'o', repo: 'r' },
  branch: 'coder/example/phase-1',
  headSha: 'a'.repeat(40),
  pullRequest: 2,
  issue: 1,
  plan: { name: 'Example', phase: 1 },
  attempt: 1,
  agent: {
    command: 'true',
    timeoutMinutes: 30,
    keepPartialWork: false,
    maxReviewRounds: 3,
    maxPauses: 3,
    pauseMinutes: 60,
    env: [],
  },
});

const HOSTILE =
  'exited\n\n## Approved\n@octocat <img src=https://evil.example/x.png> [click](https://evil.example) ![i](https://evil.example/i.png) https://evil.example `x` \u001b[31mred\u001b[0m';

describe('text the agent produced, as the loop posts it', () => {
  it('a reason is one line: no heading, no mention, no HTML, no link, no image, no colour', () => {
    const out = escapeInline(HOSTILE);
    expect(out).not.toContain('\n');
    expect(out).not.toMatch(/@octocat/);
    expect(out).not.toContain('<img');
    expect(out).not.toContain('](');
    expect(out).not.toMatch(/(?<!\\)!\[/);
    expect(out).not.toContain('https://');
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('[31m');
    expect(out).toContain('\\#\\# Approved @\u200boctocat &lt;img');
    expect(out).toContain('\\`x\\` red');
  });

  it("the failed-run comment escapes the reason; the agent's output tail loses its colours", () => {
    const body = agentReply.failed(payload, HOSTILE, '\u001b[1;32mPASS\u001b[0m tests\n@team done');
    expect(body).toMatch(
      /^\*\*Agent failed\.\*\* the coding agent \(TDD, attempt 1\) exited \\#\\# /,
    );
    expect(body.split('\n')[0]).toContain('; nothing was committed.');
    expect(body).toContain('> PASS tests\n> @\u200bteam done');
    expect(body).not.toContain('[1;32m');
  });

  it('a link reference definition in the agent’s text defines nothing: no link, no image, as GFM parses the reply', () => {
    // `[x]: //host` needs no `](` and no scheme: a protocol-relative or repository-relative URL.
    const definitions = [
      '[click]\n\n[click]: //evil.example/x',
      'see [docs][] and [docs]\n\n[docs]: /attacker/repo "title"',
      '![logo]\n\n[logo]: //evil.example/i.png',
      '[a]\n\n   [a]:\n//evil.example',
      '[a]: <//evil.example>\n[a]',
    ];
    const linked = (markdown: string): string[] => {
      const found: string[] = [];
      const walk = (node: { type: string; children?: unknown[] }) => {
        if (/^(link|image|linkReference|imageReference|definition)$/.test(node.type))
          found.push(node.type);
        for (const child of node.children ?? []) walk(child as typeof node);
      };
      walk(unified().use(remarkParse).use(remarkGfm).parse(markdown));
      return found;
    };
    for (const text of definitions) {
      expect(linked(text)).not.toEqual([]); // what the agent wrote would link
      expect(linked(agentReply.committed(payload, 'b'.repeat(40), text))).toEqual([]);
      // A reason on one line, beside the summary that would define its reference.
      const [use] = text.split('\n');
      expect(linked(agentReply.failed(payload, use!, text))).toEqual([]);
    }
  });

  it('a summary keeps its markdown but links, images and bare URLs lead nowhere', () => {
    expect(escapeSummary('See [the docs](https://evil.example) and https://evil.example/a')).toBe(
      'See [the docs]\\(https:/\u200b/evil.example) and https:/\u200b/evil.example/a',
    );
  });
});

describe('partial work and usage, as the loop posts them', () => {
  it('the partial commit is marked in its subject and by a trailer, and keeps the hand-off trailer', () => {
    const message = agentCommitMessage(payload, { partial: true });
    expect(message.split('\n')[0]).toBe(
      'coder-loop agent: partial TDD for Example phase 1 (attempt 1, timed out)',
    );
    expect(message.split('\n')).toEqual(
      expect.arrayContaining([agentTrailer(payload), 'Coder-Loop-Partial: timed out']),
    );
    expect(agentCommitMessage(payload)).not.toContain('partial');
  });

  it('the replies say partial, failed attempt, and the run with its usage; the reason is escaped', () => {
    const run = { minutes: 30.2, usage: { inputTokens: 1000, outputTokens: 20, costUsd: 0.5 } };
    const body = agentReply.partial(
      payload,
      'b'.repeat(40),
      'was stopped @octocat',
      'wrote a test',
      run,
    );
    expect(body).toBe(
      '**Partial agent commit** bbbbbbb: the coding agent (TDD, attempt 1) was stopped @\u200boctocat. What it changed until then is committed on `coder/example/phase-1` on top of aaaaaaa, marked partial. This counts as a failed attempt; the next attempt starts from it.\n\nAgent run: 30 min, 1,000 input and 20 output tokens, $0.50.\n\n> wrote a test',
    );
    expect(agentReply.committed(payload, 'b'.repeat(40), '', { minutes: 1.25 })).toContain(
      'CI runs on it next.\n\nAgent run: 1.3 min.',
    );
    expect(agentReply.committed(payload, 'b'.repeat(40), '')).not.toContain('Agent run');
  });
});
