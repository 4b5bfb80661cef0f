import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import fc from 'fast-check';
import { repoRoot } from '../paths.js';

/**
 * Fixes the seed of every fast-check property in a test file, as the model suite fixes its
 * shards' (docs/reliability.md): `FC_SEED` when set (`random`: a fresh one each run); else one
 * fixed by the code and tests under test (git's ids of `src/` and `test/` at HEAD) and the file,
 * so CI on one commit gives one verdict — a failure there fails again on every re-run of that
 * commit — while a change to the code or the tests explores other inputs. Outside a git checkout,
 * a fresh one. A failure names its seed and the command that replays it.
 */
export function fixSeed(moduleUrl: string): void {
  const file = relative(repoRoot, fileURLToPath(moduleUrl)).split('\\').join('/');
  const given = process.env.FC_SEED;
  let seed: number | undefined;
  if (given && given !== 'random') seed = Number(given);
  else if (!given) seed = gitSeed(file);
  fc.configureGlobal({
    ...fc.readConfigureGlobal(),
    ...(seed === undefined ? {} : { seed }),
    reporter: (details) => {
      if (!details.failed) return;
      const report = fc.defaultReportMessage(details) ?? 'The property failed.';
      throw new Error(`${report}\n\nReplay it: FC_SEED=${details.seed} npm run jest -- ${file}`, {
        cause: details.errorInstance,
      });
    },
  });
}

/**
 * The code and tests under test, as one number: git's ids of `src/` and `test/` at HEAD, mixed
 * (undefined outside a git checkout). The model suite's shards and every property file draw their
 * fixed seeds from it.
 */
export function headTreesId(): number | undefined {
  try {
    const [src = '', test = ''] = execFileSync('git', ['rev-parse', 'HEAD:src', 'HEAD:test'], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n');
    return parseInt(src.slice(0, 8), 16) ^ parseInt(test.slice(0, 8), 16);
  } catch {
    return undefined;
  }
}

function gitSeed(file: string): number | undefined {
  let id = headTreesId();
  if (id === undefined) return undefined;
  for (const c of file) id = Math.imul(id ^ c.charCodeAt(0), 0x9e3779b1);
  return id | 0;
}

/**
 * A property's runs: `ci`, the number CI runs (set, with its coverage floors, from what the
 * property needs to reach every shape it is about), times `FC_SCALE` when set (a whole number,
 * 1 or more) for the hunting mode (docs/reliability.md): the floors are lower bounds, so more runs
 * keep them.
 */
export function runs(ci: number): { numRuns: number } {
  const scale = Number(process.env.FC_SCALE ?? 1);
  if (!Number.isInteger(scale) || scale < 1)
    throw new Error(`FC_SCALE must be a whole number, 1 or more (it is ${process.env.FC_SCALE}).`);
  return { numRuns: ci * scale };
}
