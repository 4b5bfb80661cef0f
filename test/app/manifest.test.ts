import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { repoRoot } from '../paths.js';
import { APP_EVENTS } from '../../src/app/app.js';
import { dispatch, HANDLED_EVENTS, type LoopEnv } from '../../src/github/loop/index.js';

interface Manifest {
  name: string;
  description: string;
  default_events: string[];
  default_permissions: Record<string, string>;
}

const manifest = load(readFileSync(join(repoRoot, 'app.yml'), 'utf8')) as Manifest;

describe('one list of events', () => {
  it('the App registers, the dispatch handles and app.yml subscribes to the same events', async () => {
    const names = new Set(APP_EVENTS.map((e) => e.split('.')[0]!));
    expect([...names].sort()).toEqual([...HANDLED_EVENTS].sort());
    expect([...manifest.default_events].sort()).toEqual([...HANDLED_EVENTS].sort());
    // Each handled event reaches a handler in the dispatch the Action runs (not the fallback).
    for (const event of HANDLED_EVENTS) {
      const outcome = await dispatch({} as LoopEnv, event, {});
      expect(outcome.reason ?? '').not.toContain('does not handle');
    }
  });
});

describe('app.yml (the manifest the setup page registers)', () => {
  it('subscribes to every event the whole loop handles', () => {
    expect([...manifest.default_events].sort()).toEqual(
      [
        'check_run',
        'check_suite',
        'issue_comment',
        'issues',
        'pull_request',
        'pull_request_review',
        'status',
        'workflow_run',
      ].sort(),
    );
  });

  it('asks for the permissions the loop writes with, and no more', () => {
    expect(manifest.default_permissions).toEqual({
      contents: 'write',
      pull_requests: 'write',
      issues: 'write',
      checks: 'write',
      statuses: 'read',
      actions: 'write',
      metadata: 'read',
      members: 'read',
    });
  });

  it("has a description that survives Probot's single-quoted HTML attribute", () => {
    expect(manifest.description).not.toContain("'");
  });
});
