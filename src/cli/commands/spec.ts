import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import picomatch from 'picomatch';
import {
  DEFAULT_CONFIG,
  passesSpec,
  specTable,
  type Config,
  type SpecFile,
} from '../../core/index.js';
import { InputError } from '../files.js';
import {
  DIR_OPTION,
  EXIT,
  findPlan,
  openFound,
  refuse,
  type CliIo,
  type CommandSpec,
} from './shared.js';

const run = promisify(execFile);

/** Most bytes of diff read per test file (a test names its ids near its changes). */
const PATCH_BYTES = 200_000;

async function git(io: CliIo, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd: io.cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new InputError(`git ${args.join(' ')} failed: ${(e.stderr ?? e.message).trim()}`);
  }
}

/**
 * The working tree's changes against `base`, as Passes Spec? reads a pull request's files: every
 * changed, added, deleted or renamed path (untracked files too), and the diff of each test file.
 */
async function changedFiles(io: CliIo, base: string, config: Config): Promise<SpecFile[]> {
  // git answers with paths from the repository root, whatever folder it runs in.
  const files: SpecFile[] = [];
  const status = await git(io, ['diff', '--name-status', '-M', '-z', base, '--']);
  const parts = status.split('\0').filter((p) => p !== '');
  for (let i = 0; i < parts.length;) {
    const code = parts[i++]!;
    if (code.startsWith('R') || code.startsWith('C')) {
      const from = parts[i++]!;
      files.push({ path: parts[i++]!, ...(code.startsWith('R') ? { previous: from } : {}) });
    } else files.push({ path: parts[i++]!, ...(code === 'D' ? { deleted: true } : {}) });
  }
  const untracked = await git(io, [
    'ls-files',
    '--others',
    '--exclude-standard',
    '--full-name',
    '-z',
  ]);
  const root = (await git(io, ['rev-parse', '--show-toplevel'])).trim();
  const fresh = untracked.split('\0').filter((p) => p !== '');
  for (const path of fresh) files.push({ path });
  // The diffs of test files only: the one more read the verdict needs.
  const isTest = picomatch(config.testPaths.length ? config.testPaths : DEFAULT_CONFIG.testPaths, {
    dot: true,
  });
  for (const file of files) {
    if (file.deleted || !isTest(file.path)) continue;
    if (fresh.includes(file.path)) {
      const text = (await readFile(join(root, file.path), 'utf8')).slice(0, PATCH_BYTES);
      file.patch = text
        .split('\n')
        .map((l) => `+${l}`)
        .join('\n');
    } else file.patch = (await git(io, ['diff', base, '--', file.path])).slice(0, PATCH_BYTES);
  }
  return files;
}

export const spec: CommandSpec = {
  usage: 'spec [PlanName | path of its tasks file] [--base <ref>] [--dir <plansDir>]',
  summary: "the Passes Spec? verdict for the working tree's changes",
  options: { ...DIR_OPTION, base: { type: 'string' } },
  async run(args, io) {
    const { repo } = args;
    const { config } = repo;
    const base = (args.values.base as string | undefined) ?? 'HEAD';
    const plan = await openFound(args, await findPlan(args, io, args.positionals[0]));
    refuse(io, plan.refusal());
    const work = plan.workPhase();
    if ('missing' in work) throw new InputError(work.missing);
    const phase = {
      label: `${plan.label} phase ${work.phase.number}`,
      tasks: plan.specTasks(work.phase),
    };
    const files = await changedFiles(io, base, config);
    const verdict = passesSpec(phase.tasks, files, {
      testPaths: config.testPaths,
      plansDir: repo.plansDirRel,
    });
    io.stdout(`Passes Spec? for ${phase.label}, the working tree against ${base}:`);
    io.stdout('');
    io.stdout(specTable(verdict));
    return verdict.passed || config.specCheck !== 'require' ? EXIT.ok : EXIT.invalid;
  },
};
