import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * `npm run demo` (scripts/demo.ts): the built Action against the in-memory GitHub on 127.0.0.1
 * and the scripted agent, narrated node by node to "Phase 1 complete", every line within 80 columns.
 */
jest.setTimeout(300_000);

const demo = (...args: string[]) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'scripts', 'demo.ts'), ...args],
      { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' } },
      (error, out, err) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out + err }),
    ),
  );

it('narrates one phase from /coder next to "Phase 1 complete"', async () => {
  const { code, stdout } = await demo();
  expect([code, stdout]).toEqual([0, expect.any(String)]);
  const nodes = [...stdout.matchAll(/^ +[\d.]+s \d+\. (.+?) — /gm)].map((m) => m[1]);
  expect(nodes).toEqual([
    'Start',
    'Context valid? → Locked? → Mark [~]',
    'Automatic PR per phase',
    'TDD → Implement',
    'Verification',
    'Debug & Fix',
    'Verification',
    'Passes Spec?',
    'Code Review',
    'Mark [x] → Report → Update context → Log',
    'Final Verification',
    'Return to Orchestrator',
  ]);
  expect(stdout).toContain('wrote docs/plans/Example/Reports/01_Endpoint.md');
  expect(stdout).toContain('comment   on issue #1: Phase 1 complete');
  expect(stdout).toMatch(/^Phase 1 complete — in [\d.]+ s, no account, no network\.$/m);
  // The narration as one line, for sentences the 80 columns wrap.
  const text = stdout.replace(/\s+/g, ' ');
  // The red CI is said to be staged.
  expect(text).toContain('staged: the demo fails CI on purpose to show Debug & Fix');
  // Passes Spec?: the check run's table, each task with its evidence.
  expect(text).toContain('Passes Spec? yes — 3 of 3 tasks traced to evidence, 0 lacking.');
  for (const id of ['1.1', '1.2', '1.2.1']) {
    expect(text).toContain(`task ${id} `);
    expect(text).toContain(`evidence: test/coder/example-phase-1.test.mjs names ${id}.`);
  }
  // Every line fits 80 columns.
  expect(stdout.split('\n').filter((line) => [...line].length > 80)).toEqual([]);
  // Without --keep the working folder is removed, and the demo says so.
  const removed = /^Removed (\S+) \(npm run demo -- --keep keeps it\)\.$/m.exec(stdout);
  expect(removed).not.toBeNull();
  expect(existsSync(removed![1]!)).toBe(false);
  // No colour codes when NO_COLOR is set (or stdout is not a terminal).
  expect(stdout).not.toContain('\x1b[');
});

it('--keep keeps the working folder and says where it is', async () => {
  const { code, stdout } = await demo('--keep');
  expect([code, stdout]).toEqual([0, expect.any(String)]);
  const kept = /^Kept (\S+): each run's files and the checkouts \(--keep\)\.$/m.exec(stdout);
  expect(kept).not.toBeNull();
  try {
    expect(readdirSync(kept![1]!)).toEqual(expect.arrayContaining(['checkout-2', 'run-1']));
  } finally {
    rmSync(kept![1]!, { recursive: true, force: true });
  }
  expect(stdout.split('\n').filter((line) => [...line].length > 80)).toEqual([]);
});
