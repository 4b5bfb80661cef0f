/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  // Suites spend much of their time waiting on timers (Octokit's request queues, nock), so more
  // workers than cores finish sooner; the model-based runs are split into shards for this.
  maxWorkers: 4,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
};
