import base from './jest.config.js';

/**
 * `npm run test:fast`, the inner loop: the core, CLI and docs suites, without the ones that take
 * the most time for what an edit needs checked at once. `npm test` runs every suite, these too.
 */
const LEFT_OUT = [
  // The built CLI run as a process, command by command: about 110 s and 60 s.
  '<rootDir>/test/cli/cli\\.test\\.ts$',
  '<rootDir>/test/cli/repository\\.test\\.ts$',
  // The fast path and each dialect against remark(-gfm) on thousands of generated documents:
  // 10–40 s each.
  '<rootDir>/test/core/differential\\.test\\.ts$',
  '<rootDir>/test/core/tabBoxes\\.test\\.ts$',
  '<rootDir>/test/core/kiroDifferential\\.test\\.ts$',
  '<rootDir>/test/core/dialectDifferential\\.test\\.ts$',
];

/** @type {import('jest').Config} */
export default {
  ...base,
  testMatch: ['<rootDir>/test/{core,cli,docs}/**/*.test.ts'],
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, ...LEFT_OUT],
};
