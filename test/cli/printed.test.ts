import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cliCommand,
  CLI_NAME,
  githubRepositoryOf,
  planSkeleton,
  PLAN_FILES,
  reply,
  validateContext,
  type Assessment,
  type PlanContext,
} from '../../src/core/index.js';
import { kindStatusSection, statusSection } from '../../src/core/loop/messages/statusSection.js';
import { inProcess } from '../helpers/cli.js';
import { repoRoot } from '../paths.js';

/**
 * Every command the loop prints runs as printed. coder-loop is not on npm, so `npx coder-loop …`
 * is an npm 404: the loop prints `npx github:<owner>/coder-loop …` (the README's form), and each
 * command after that prefix is one the CLI takes, run here against a repository with a plan.
 */

const cli = cliCommand('my-org/coder-loop');

const plan: Assessment = {
  mode: 'plan',
  reasons: [{ mode: 'plan', trigger: 'many files', evidence: 'src/a.ts, src/b.ts' }],
} as Assessment;
const invalid = {
  checklist: undefined,
  current: undefined,
  valid: false,
} as unknown as PlanContext;

/** A plan without its 00_context.md: the problem's fix names the CLI's init. */
const skeleton = planSkeleton('Sample', '2025-01-01');
skeleton.delete(PLAN_FILES.context);
const noContext = validateContext({
  name: 'Sample',
  dir: 'docs/plans/Sample',
  paths: [...skeleton.keys()],
  files: skeleton,
}).problems;

/** Every text the loop posts that names a CLI command. */
const printed: Record<string, string> = {
  'the no-plan reply': reply.noPlans('docs/plans', cli),
  "the assessment's plan mode": reply.assessment(plan, cli),
  'two plans sharing a lock branch': reply.slugConflict('A b', 'A-b', 'coder/a-b/…', cli),
  '/coder status on an invalid plan': statusSection('Sample', invalid, undefined, cli),
  '/coder next on a plan without its context': reply.planRequired('Sample', noContext, cli),
  "/coder status listing a plan's problems": kindStatusSection(
    'Sample',
    'coder',
    'docs/plans/Sample',
    {
      phases: [],
      current: undefined,
      complete: false,
      waiting: undefined,
      problems: noContext,
    },
    undefined,
    cli,
  ),
};

/** The commands in a text's code spans that run coder-loop (`npx …` or `coder-loop …`). */
function commands(text: string): string[] {
  // A problem in a reply is a ``double`` span that holds its fix's `single` spans.
  const spans = [...text.matchAll(/(`+) ?(.+?) ?\1/g)].map((m) => m[2]!);
  const inner = spans.flatMap((span) => [...span.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  return [...spans, ...inner].filter((c) => /^(npx |coder-loop )/.test(c));
}

/** A command line's words as a POSIX shell splits them (double quotes only, as printed). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-printed-'));
  await cp(join(repoRoot, 'test/fixtures/plans/Sample'), join(work, 'docs/plans/Sample'), {
    recursive: true,
  });
});
afterEach(() => rm(work, { recursive: true, force: true }));

describe('the commands the loop prints', () => {
  it.each(Object.entries(printed))('%s: each starts with the runnable prefix', (_, text) => {
    const found = commands(text);
    expect(found.length).toBeGreaterThan(0);
    for (const command of found) expect(command.startsWith(`${cli} `)).toBe(true);
  });

  it.each(Object.entries(printed))('%s: the CLI takes each command as printed', async (_, text) => {
    for (const command of commands(text)) {
      const [verb, ...args] = words(command.slice(cli.length + 1));
      const run = await inProcess(work, verb!, ...args);
      expect(run.stderr).not.toMatch(/unknown command|Usage:/);
      expect(run.code).not.toBe(2);
    }
  });

  it("the prefix is the README's, and runs this package's one binary", async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
    };
    // `npx github:<owner>/<repo> <args>` runs the package's binary when it has exactly one.
    expect(Object.keys(pkg.bin)).toEqual([CLI_NAME]);
    expect(pkg.name).toBe(CLI_NAME);
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`${cliCommand('your-org/coder-loop')} init "My Plan"`);
    expect(readme).toContain(`${cliCommand('your-org/coder-loop')} doctor`);
  });

  it('names the repository only when it is one: else the installed CLI', () => {
    expect(cliCommand('acme/coder-loop')).toBe('npx github:acme/coder-loop');
    expect(cliCommand(undefined)).toBe('coder-loop');
    expect(cliCommand('')).toBe('coder-loop');
    expect(cliCommand('not a repo; rm -rf /')).toBe('coder-loop');
    expect(githubRepositoryOf('https://github.com/acme/coder-loop')).toBe('acme/coder-loop');
    expect(githubRepositoryOf('https://ghe.example.com/acme/coder-loop')).toBeUndefined();
  });
});
