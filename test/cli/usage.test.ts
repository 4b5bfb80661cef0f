import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inProcess } from '../helpers/cli.js';

/** What a newcomer types wrong, and what the CLI answers: the option, the fix, the usage. */
let work: string;

function cli(...args: string[]) {
  return inProcess(work, ...args);
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-usage-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('usage errors', () => {
  it('an unknown option is named, with the near one, not in parseArgs words', async () => {
    expect(await cli('plans', '--jsn')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'coder-loop plans: unknown option --jsn. Did you mean --json?\nUsage: coder-loop plans [--json] [--dir <plansDir>]',
    });
  });

  it('an option without its value, and a value given to a flag', async () => {
    expect((await cli('plans', '--dir')).stderr).toMatch(
      /^coder-loop plans: --dir needs a value\.\n/,
    );
    expect((await cli('plans', '--json=yes')).stderr).toMatch(
      /^coder-loop plans: --json takes no value\.\n/,
    );
  });

  it("init's hint quotes the plan name, so that it can be pasted", async () => {
    const run = await cli('init', 'My Plan');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Next: edit the plan, then run: coder-loop lint "My Plan"$/);
  });
});
