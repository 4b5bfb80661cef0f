import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * The order Jest starts the suites in: the longest first, so that the workers end together
 * instead of one finishing a four-minute suite alone at the end (issue 42).
 *
 * Jest orders by each suite's duration in its cache, which a fresh clone (CI) does not have: it
 * then orders by file size, and the longest suites — the model shards, three lines each — came
 * last. So a suite with no time in the cache takes the one below, measured (seconds of wall time
 * in a fresh-clone CI run on the 2-core machine; the table `npm test` ends with lists the
 * heaviest suites of a run), and any other one a couple of seconds (most take one to five). A suite that failed in the last run still goes first,
 * as with Jest's own order. Only the order changes: every suite runs.
 */
export const KNOWN_SECONDS = {
  'test/agents/clis.e2e.test.ts': 130,
  'test/sim/model.shard1.test.ts': 80,
  'test/sim/model.shard2.test.ts': 80,
  'test/core/corpusDifferential.test.ts': 40,
  'test/action/agent.e2e.test.ts': 68,
  'test/app/container.test.ts': 28,
  'test/app/bundle.test.ts': 8,
  'test/cli/cli.test.ts': 52,
  'test/action/e2e.test.ts': 35,
  'test/core/kiroDifferential.test.ts': 24,
  'test/demo.test.ts': 30,
  'test/app/wake.test.ts': 30,
  'test/core/differential.test.ts': 19,
  'test/action/loop-agent.e2e.test.ts': 26,
  'test/app/replicas.test.ts': 24,
  'test/core/dialectDifferential.test.ts': 18,
  'test/app/record.test.ts': 22,
  'test/action/run.e2e.test.ts': 21,
  'test/app/run.test.ts': 20,
  'test/app/architect.test.ts': 18,
  'test/cli/repository.test.ts': 17,
  'test/package.test.ts': 16,
  'test/core/tabBoxes.test.ts': 16,
  'test/app/trust.test.ts': 15,
  'test/core/properties.test.ts': 14,
  'test/app/development.test.ts': 13,
  'test/action/kinds.e2e.test.ts': 13,
  'test/app/gate.test.ts': 12,
  'test/app/triage.test.ts': 12,
  'test/docs/names.test.ts': 12,
  'test/app/loop.test.ts': 12,
  'test/core/loop/record.test.ts': 12,
};

/** What a suite Jest has no time for and the list does not name is taken to take. */
const OTHER_SECONDS = 2;

export default class LongestFirst extends Sequencer.default {
  sort(tests) {
    const expected = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      const known = KNOWN_SECONDS[relative(test.context.config.rootDir, test.path)];
      return known ?? OTHER_SECONDS;
    };
    const keyed = tests.map((test) => ({
      test,
      failed: Boolean(this.hasFailed(test)),
      seconds: expected(test),
      size: test.context.hasteFS.getSize(test.path) ?? 0,
    }));
    keyed.sort(
      (a, b) => Number(b.failed) - Number(a.failed) || b.seconds - a.seconds || b.size - a.size,
    );
    return keyed.map((k) => k.test);
  }
}
