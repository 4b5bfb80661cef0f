#!/usr/bin/env node
import { main } from './main.js';
import { render, styleFor } from './render.js';

// `coder-loop status | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) =>
    process.stdout.write(`${render(text, styleFor(process.stdout, process.env))}\n`),
  stderr: (text) =>
    process.stderr.write(`${render(text, styleFor(process.stderr, process.env))}\n`),
  now: () => new Date(),
  env: process.env,
});
