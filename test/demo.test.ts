import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * `npm run demo` (scripts/demo.ts): the built Action against the in-memory GitHub on 127.0.0.1
 * and the scripted agent, narrated node by node to "Phase 1 complete".
 */
jest.setTimeout(300_000);

it('narrates one phase from /coder next to "Phase 1 complete"', async () => {
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'scripts', 'demo.ts')],
      { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' } },
      (error, out, err) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out + err }),
    ),
  );
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
    'Code Review',
    'Mark [x] → Report → Update context → Log',
    'Final Verification',
    'Return to Orchestrator',
  ]);
  expect(stdout).toContain('wrote docs/plans/Example/Reports/01_Endpoint.md');
  expect(stdout).toContain('comment   on issue #1: Phase 1 complete');
  expect(stdout).toMatch(/^Phase 1 complete — in [\d.]+ s, no account, no network\.$/m);
  // No colour codes when NO_COLOR is set (or stdout is not a terminal).
  expect(stdout).not.toContain('\x1b[');
});
