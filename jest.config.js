/** @type {import('jest').Config} */
export default {
  // Jest's node environment, plus what a worker's suites share (see the file).
  testEnvironment: '<rootDir>/test/helpers/environment.js',
  // Scratch repositories under a tmpdir() that is outside every git working copy (see the file).
  globalSetup: '<rootDir>/test/helpers/scratch.js',
  // CI and the reference machine have 2 cores, and three workers: a worker spends about a tenth
  // of a run waiting (on the real processes a suite starts, their servers, the App's timers), and
  // a third one takes that time — a fresh clone's run 9 min 55 s with two, 8 min 2 s with three
  // (issue 42; docs/benchmarks.md). Each test's 30 s below, not Jest's 5 s, is what keeps the
  // timer-bound App suites from failing when the cores are shared three ways (issue 13).
  maxWorkers: 3,
  // A scenario test waits on Octokit's request queues and real loopback servers; on a loaded
  // 2-core machine a single test can take several seconds, so each gets 30 s (the model shards
  // and the process-level suites set their own, longer, limits).
  testTimeout: 30_000,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Bottleneck's zero-delay yields (three a GitHub request) without Node's 1 ms floor: see the file.
  setupFilesAfterEnv: ['<rootDir>/test/helpers/setup.ts'],
  // The longest suites first, from a measured list when Jest's cache has no times (a fresh clone).
  testSequencer: '<rootDir>/test/sequencer.js',
  // The agent CLIs' own install (test/agents/clis, 1 GB): nothing there is a test or a module.
  modulePathIgnorePatterns: ['<rootDir>/test/agents/clis/'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/agents/clis/'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // TypeScript's types stripped file by file by esbuild (test/helpers/transform.js): what ts-jest's
  // transpile mode did, at a third less CPU for the whole run; types are checked by `npm run
  // typecheck`, beside Jest in `npm test`.
  transform: { '^.+\\.ts$': '<rootDir>/test/helpers/transform.js' },
};
