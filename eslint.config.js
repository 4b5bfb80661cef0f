import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'lib/',
      'dist/',
      'coverage/',
      'node_modules/',
      // test/agents/clis.e2e.test.ts: the agent CLIs' install and each run's checkout, written
      // while ESLint runs beside Jest (scripts/test.js).
      'test/agents/clis/',
      'test/agents/.work/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/core/**/*.ts'],
    rules: {
      // The core is pure: no GitHub SDKs, no file system, no network.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['probot', 'probot/*', '@actions/*', '@octokit/*', 'octokit'],
              message: 'src/core is pure.',
            },
            {
              group: [
                'node:fs',
                'node:fs/*',
                'fs',
                'fs/*',
                'node:child_process',
                'node:net',
                'node:http',
                'node:https',
              ],
              message: 'src/core does no I/O.',
            },
          ],
        },
      ],
    },
  },
);
