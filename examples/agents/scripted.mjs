#!/usr/bin/env node
/* global process, console */
// A scripted coding agent for coder-loop: no model, deterministic, so anyone (and the tests) can
// watch a phase run through the loop. It follows the hand-off's contract like a real agent:
// reads $CODER_CONTEXT_DIR, edits the checkout (the current directory), writes
// $CODER_OUTPUT_DIR/summary.md, and never commits.
//
//   tdd         writes a failing test for the phase's tasks, checks that it fails, then writes
//               the code that makes it pass, and checks that it passes
//   debug-fix   reads ci-failures.json and rewrites the phase's module (the "fix"), recording
//               which checks failed
//   review-fix  edits every commented line of review-comments.json: a ```suggestion block
//               replaces the line, any other comment is added after it as a code comment
//
// Usage: node scripted.mjs [--mode normal|fail|none|workflow|checklist|sleep|escape|partial]
// The modes other than normal misbehave on purpose, for trying the loop's fault handling:
//   escape   an attacker: leaves a process behind (setsid, double fork, empty environment) that
//            looks for changes-dir in its ancestors' /proc/<pid>/environ and rewrites
//            changes.json once the step wrote it; then exits 3. `--token T` puts T on the
//            left-behind process's command line so a test can look for it.
//   partial  writes part of the work (the failing test), then sleeps past the timeout
//
// `--usage file` writes $CODER_OUTPUT_DIR/usage.json ({"inputTokens","outputTokens","costUsd"}),
// `--usage stdout` prints the same numbers as Claude Code's `--output-format json` result object:
// the two ways a run's usage reaches the loop (docs/agent.md, "Usage"). Either is done first, so
// a run that is stopped later has reported it too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const env = process.env;
const contextDir = env.CODER_CONTEXT_DIR;
const outputDir = env.CODER_OUTPUT_DIR;
if (!contextDir || !outputDir || !env.CODER_NODE) {
  console.error('scripted agent: run me through coder-loop (CODER_* variables are missing)');
  process.exit(2);
}
const mode = process.argv.includes('--mode')
  ? process.argv[process.argv.indexOf('--mode') + 1]
  : 'normal';
const usage = process.argv.includes('--usage')
  ? process.argv[process.argv.indexOf('--usage') + 1]
  : undefined;
const readJson = (name) => JSON.parse(readFileSync(join(contextDir, name), 'utf8'));
const write = (path, text) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const done = [];
const summary = (lines) => write(join(outputDir, 'summary.md'), `${lines.join('\n')}\n`);

const tasksFile = readJson('tasks.json');
const slug = tasksFile.plan
  ? `${tasksFile.plan
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}-phase-${tasksFile.phase.number}`
  : `issue-${tasksFile.issue}`;
const modulePath = `src/coder/${slug}.mjs`;
const testPath = `test/coder/${slug}.test.mjs`;
const taskIds = tasksFile.tasks.map((t) => t.id);

/** node --test on the phase's test file: true when it passes. */
function testPasses() {
  const run = spawnSync(process.execPath, ['--test', testPath], { encoding: 'utf8' });
  return run.status === 0;
}

function moduleText(fixes) {
  return [
    `// Phase module written by the scripted agent for ${tasksFile.plan ?? `issue #${tasksFile.issue}`}.`,
    `export const tasks = ${JSON.stringify(taskIds)};`,
    `export const fixes = ${JSON.stringify(fixes)};`,
    '',
  ].join('\n');
}

// Made-up numbers, the same on every run, so a test can look for them.
const used = { inputTokens: 1234, outputTokens: 567, costUsd: 0.089 };
if (usage === 'file') write(join(outputDir, 'usage.json'), `${JSON.stringify(used)}\n`);
if (usage === 'stdout')
  console.log(
    JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'scripted',
      total_cost_usd: used.costUsd,
      usage: { input_tokens: used.inputTokens, output_tokens: used.outputTokens },
    }),
  );

switch (mode) {
  case 'fail':
    write(modulePath, moduleText([]));
    console.error('scripted agent: failing on purpose (--mode fail)');
    process.exit(3);
    break;
  case 'none':
    summary(['Nothing to do (--mode none).']);
    process.exit(0);
    break;
  case 'workflow':
    write('.github/workflows/agent.yml', 'on: push\njobs: {}\n');
    summary(['Edited a workflow (--mode workflow).']);
    process.exit(0);
    break;
  case 'checklist': {
    const checklist = join('docs/plans', tasksFile.plan ?? '', '01_Master Plan/01_Checklist.md');
    write(checklist, readFileSync(checklist, 'utf8').replace(/\[~\]/g, '[x]'));
    summary(['Marked the checklist myself (--mode checklist).']);
    process.exit(0);
    break;
  }
  case 'sleep':
    spawnSync('sleep', ['3600']);
    process.exit(0);
    break;
  case 'escape': {
    const token = process.argv.includes('--token')
      ? process.argv[process.argv.indexOf('--token') + 1]
      : 'coder-loop-escape';
    const ready = join(outputDir, 'escape-ready');
    // The grandchild: no session, no parent, no environment of the run.
    const grandchild = `
      const fs = require('node:fs');
      const path = require('node:path');
      let dir;
      for (let pid = ${process.pid}; pid > 1 && !dir; ) {
        try {
          const env = fs.readFileSync('/proc/' + pid + '/environ', 'latin1').split('\\0');
          const hit = env.find((v) => v.startsWith('INPUT_CHANGES-DIR='));
          if (hit) dir = hit.slice('INPUT_CHANGES-DIR='.length);
          pid = Number(/PPid:\\s*(\\d+)/.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'))[1]);
        } catch { break; }
      }
      fs.writeFileSync(${JSON.stringify(ready)}, String(dir));
      const started = Date.now();
      const tick = setInterval(() => {
        if (Date.now() - started > 60000) process.exit(0);
        if (!dir) return;
        const file = path.join(dir, 'changes.json');
        try {
          const run = JSON.parse(fs.readFileSync(file, 'utf8'));
          if (run.changes.some((c) => c.path === 'pwned.txt')) return;
          run.outcome = 'changed';
          delete run.reason;
          run.changes = [{ path: 'pwned.txt', mode: '100644', content: Buffer.from('pwned\\n').toString('base64') }];
          fs.writeFileSync(file, JSON.stringify(run));
        } catch {}
      }, 20);
    `;
    const child = `
      const { spawn } = require('node:child_process');
      spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}, ${JSON.stringify(token)}], { detached: true, stdio: 'ignore', env: {} }).unref();
    `;
    spawn(process.execPath, ['-e', child, token], { detached: true, stdio: 'ignore', env: {} });
    while (!existsSync(ready)) spawnSync('sleep', ['0.05']);
    console.error('scripted agent: left a process behind and exits 3 (--mode escape)');
    process.exit(3);
    break;
  }
  case 'partial':
    write(testPath, `// the failing test, written before the time ran out\n`);
    summary(['Wrote the test; ran out of time (--mode partial).']);
    spawnSync('sleep', ['3600']);
    process.exit(0);
    break;
  default:
    break;
}

if (env.CODER_NODE === 'tdd') {
  // Write Failing Test → Test Valid? → Implement Minimal Code → Passes Spec?
  write(
    testPath,
    [
      "import assert from 'node:assert/strict';",
      "import { test } from 'node:test';",
      '',
      // One test a task, each on its own line: one line naming every task would be a list,
      // which Passes Spec? counts as evidence for none of them.
      ...taskIds.flatMap((id) => [
        `test('task ${id} is covered by the phase module', async () => {`,
        `  const { tasks } = await import('../../${modulePath}');`,
        `  assert.ok(tasks.includes(${JSON.stringify(id)}));`,
        '});',
      ]),
      '',
    ].join('\n'),
  );
  if (testPasses()) {
    console.error('scripted agent: the new test passes before any code: it tests nothing');
    process.exit(1);
  }
  done.push(`- wrote the failing test \`${testPath}\``);
  write(modulePath, moduleText([]));
  if (!testPasses()) {
    console.error('scripted agent: the test still fails after the code was written');
    process.exit(1);
  }
  done.push(`- implemented \`${modulePath}\` for tasks ${taskIds.join(', ')}; the test passes`);
} else if (env.CODER_NODE === 'debug-fix') {
  const failures = existsSync(join(contextDir, 'ci-failures.json'))
    ? readJson('ci-failures.json')
    : [];
  const previous = existsSync(modulePath)
    ? JSON.parse(/export const fixes = (.*);/.exec(readFileSync(modulePath, 'utf8'))?.[1] ?? '[]')
    : [];
  const names = failures.map((f) => f.name).join(', ') || 'unknown';
  write(modulePath, moduleText([...previous, `attempt ${env.CODER_ATTEMPT}: ${names}`]));
  done.push(`- fixed \`${modulePath}\` after the failing checks ${names}`);
} else if (env.CODER_NODE === 'review-fix') {
  const review = readJson('review-comments.json');
  for (const comment of review?.comments ?? []) {
    if (!comment.line || !existsSync(comment.path)) continue;
    const lines = readFileSync(comment.path, 'utf8').split('\n');
    const suggestion = /```suggestion\r?\n([\s\S]*?)\r?\n?```/.exec(comment.body)?.[1];
    const note = comment.body.split('\n')[0].replace(/\*\//g, '');
    const marker = /\.(py|sh|ya?ml|rb)$/.test(comment.path) ? '#' : '//';
    lines[comment.line - 1] = suggestion ?? `${lines[comment.line - 1]} ${marker} review: ${note}`;
    writeFileSync(comment.path, lines.join('\n'));
    done.push(
      `- ${comment.path}:${comment.line}: ${suggestion === undefined ? 'noted' : 'applied the suggestion'}`,
    );
  }
}

summary([
  `Scripted agent, ${env.CODER_NODE} (attempt ${env.CODER_ATTEMPT}):`,
  '',
  ...(done.length ? done : ['- nothing to change']),
]);
