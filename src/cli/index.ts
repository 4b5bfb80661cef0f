#!/usr/bin/env node
import module from 'node:module';
import { invokedAs } from './invocation.js';
import { main } from './main.js';
import { lineOutput } from './output.js';
import { render, styleFor } from './render.js';

// Node 22.1 and later keep the compiled code of the modules a command loads (in the system's
// temporary folder), so the next call compiles none of it again; Node 20 has no such cache.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// `coder-loop status | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const out = lineOutput((to, text) => process[to].write(text));
// A line printed just before an exception Node reports itself still goes out first.
process.on('exit', out.flush);

process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  cli: await invokedAs({
    script: process.argv[1],
    cwd: process.cwd(),
    path: process.env.PATH,
  }),
  stdout: (text) => out.stdout(render(text, styleFor(process.stdout, process.env))),
  stderr: (text) => out.stderr(render(text, styleFor(process.stderr, process.env))),
  now: () => new Date(),
  env: process.env,
});
