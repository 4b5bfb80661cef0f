import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { closest } from '../core/spelling.js';
import { describeFsError, EXIT, InputError, packageFile, UsageError } from './files.js';
import { workingCopyRoot } from './git.js';
import { usageText } from './invocation.js';
import type { CliIo, Parsed } from './commands/shared.js';
import { COMMANDS } from './commands/index.js';

/** The package's version, from its package.json. */
async function version(): Promise<string> {
  const text = await readFile(packageFile('package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/**
 * The CLI's usage: every command's summary (each command's module loaded to read it), its
 * commands as the user runs the CLI (`cli`).
 */
async function usage(cli: string): Promise<string> {
  const lines = [`Usage: ${cli} <command> [options]`, '', 'Commands:'];
  for (const [name, load] of Object.entries(COMMANDS))
    lines.push(`  ${name.padEnd(8)} ${(await load()).summary}`);
  lines.push(
    '',
    'Every command works on the repository the current folder is in (its root is the nearest',
    'folder up that holds .git, as git finds it), reads its .github/coder.yml as the loop does,',
    "and takes --dir <plansDir> (default: the config's plansDir, else docs/plans).",
    `${cli} --version prints the version.`,
    'Exit codes: 0 ok, 1 invalid plan or input, 2 usage error.',
    `Run "${cli} <command> --help" for a command's usage.`,
  );
  return lines.join('\n');
}

/** Node's parseArgs errors, said as the CLI says things: the option, what is wrong, a near name. */
function optionProblem(error: unknown, options: readonly string[]): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    const near = closest(option.replace(/^-+/, ''), options);
    return `unknown option ${option}.${near ? ` Did you mean --${near}?` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option)
    return message.includes('argument missing')
      ? `${option} needs a value.`
      : `${option} takes no value.`;
  return message;
}

/** Runs one CLI invocation; returns the exit code. The only error boundary of the CLI. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout)(await usage(io.cli));
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    io.stdout(await version());
    return EXIT.ok;
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    const near = closest(command, Object.keys(COMMANDS));
    const hint = near ? ` Did you mean "${near}"?` : '';
    io.stderr(`coder-loop: unknown command "${command}".${hint}\n\n${await usage(io.cli)}`);
    return EXIT.usage;
  }
  // Only this command's modules are loaded: the others' cost no start-up.
  const spec = await COMMANDS[command]!();
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      options: spec.options ?? {},
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout(`${usageText(spec.usage, io.cli)}\n\n${spec.summary}`);
      return EXIT.ok;
    }
    // The repository's root, found as git finds it from a subfolder (with git's ceiling folders);
    // outside a git working copy, the current folder.
    const root = (await workingCopyRoot(io.cwd, io.env)) ?? io.cwd;
    // The repository's config, read as the loop reads it; --dir names another plans folder
    // (from the current folder, as a path typed on the command line is).
    const { readRepoConfig } = await import('./repo.js');
    const { config, problems } = await readRepoConfig(root);
    const dirOption = typeof values.dir === 'string' ? values.dir : config.plansDir;
    const plansDir =
      typeof values.dir === 'string' ? resolve(io.cwd, values.dir) : resolve(root, dirOption);
    const plansDirRel = relative(root, plansDir).split('\\').join('/') || '.';
    const shownPlansDir = isAbsolute(dirOption) ? plansDir : plansDirRel;
    const repo = {
      root,
      config: { ...config, plansDir: plansDirRel },
      plansDir,
      plansDirRel,
    };
    const flat = values as Parsed['values']; // no option is declared `multiple`
    return await spec.run(
      { positionals, values: flat, plansDir, shownPlansDir, repo, configProblems: problems },
      { ...io, cwd: root },
    );
  } catch (error) {
    if (error instanceof InputError) {
      io.stderr(`coder-loop ${command}: ${error.message}`);
      return EXIT.invalid;
    }
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      const message = optionProblem(error, Object.keys(spec.options ?? {}));
      io.stderr(`coder-loop ${command}: ${message}\n${usageText(spec.usage, io.cli)}`);
      return EXIT.usage;
    }
    if (error instanceof Error && error.name === 'StaleChecklistError') {
      io.stderr(`coder-loop ${command}: ${error.message}`);
      return EXIT.invalid;
    }
    const fsProblem = describeFsError(error, io.cwd);
    if (fsProblem !== undefined) {
      io.stderr(`coder-loop ${command}: ${fsProblem}`);
      return EXIT.invalid;
    }
    throw error;
  }
}
