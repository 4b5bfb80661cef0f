import type { Config } from '../core/config.js';

/**
 * The config of a repository without `.github/coder.yml`: the loop's defaults, written out. The
 * loop's own value is `DEFAULT_CONFIG` of src/core/config.ts, what its zod schema makes of `{}`;
 * this copy lets a CLI call in such a repository load neither zod nor the schema (the CLI's
 * start-up, docs/benchmarks.md), and test/cli/defaultConfig.test.ts holds it equal to the
 * schema's, key order included.
 */
export const DEFAULT_CONFIG: Config = {
  plansDir: 'docs/plans',
  architects: [],
  reviewers: [],
  allowSelfApproval: false,
  locked: [],
  testPaths: ['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**'],
  specCheck: 'require',
  requiredChecks: [],
  ciStallMinutes: 30,
  maxRetries: 3,
  rerun: { infrastructure: true, failures: false, perHead: 2 },
  budget: {},
  autoMerge: false,
  deleteBranchOnMerge: true,
  quick: { label: 'coder:quick', maxFiles: 1, maxLines: 50, log: false },
};
