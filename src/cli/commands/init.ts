import { randomBytes } from 'node:crypto';
import { access, chmod, link, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PLAN_FILES, planSkeleton } from '../../core/index.js';
import { InputError, writeAtomic } from '../files.js';
import { shellWord } from '../invocation.js';
import { EXIT, DIR_OPTION, type CommandSpec, planDirShown, needPlanName } from './shared.js';

/** The documents of any plan, whatever its phases. */
const PLAN_LEVEL = new Set<string>([PLAN_FILES.context, PLAN_FILES.codemap, PLAN_FILES.masterLog]);

/**
 * A plan folder that exists gets the documents of the skeleton it lacks, each created only where
 * no file is (a hard link of a finished temporary file: never half a file, never over another's),
 * and no other file touched.
 */
async function addMissing(
  target: string,
  shown: string,
  name: string,
  io: Parameters<CommandSpec['run']>[1],
): Promise<number> {
  if (!(await stat(target)).isDirectory())
    throw new InputError(
      `${shown}: already exists and is not a folder; init will not overwrite it.`,
    );
  const files = planSkeleton(name, io.now().toISOString().slice(0, 10));
  // With its own checklist, the plan has its own phases: the skeleton's phase plans and its
  // requirements are not this plan's.
  const ownChecklist = await access(join(target, PLAN_FILES.checklist)).then(
    () => true,
    () => false,
  );
  const added: string[] = [];
  for (const [path, content] of files) {
    if (ownChecklist && !PLAN_LEVEL.has(path)) continue;
    const file = join(target, path);
    await mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temp, content, 'utf8');
      await link(temp, file);
      added.push(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temp, { force: true });
    }
  }
  if (added.length === 0)
    throw new InputError(
      `${shown}: already exists with every document init writes, and init overwrites none.`,
    );
  io.stdout(`Added to ${shown} the documents it lacked (the others are untouched):`);
  for (const path of added) io.stdout(`  ${path}`);
  io.stdout(`Next: edit them, then run: ${io.cli} lint ${shellWord(name, true)}`);
  return EXIT.ok;
}

export const init: CommandSpec = {
  usage: 'init <PlanName> [--dir <plansDir>]',
  summary:
    'scaffold the plan directory from templates (in an existing one: the documents it lacks)',
  options: DIR_OPTION,
  async run(args, io) {
    const name = needPlanName(args.positionals[0]);
    const target = join(args.plansDir, name);
    const shown = planDirShown(args, name);
    const exists = await access(target).then(
      () => true,
      () => false,
    );
    if (exists) return addMissing(target, shown, name, io);
    await mkdir(args.plansDir, { recursive: true });
    // Build the plan in a hidden folder beside it, then rename: all of it or none of it.
    const temp = await mkdtemp(join(args.plansDir, `.${name.replace(/\s+/g, '_')}-`));
    try {
      const files = planSkeleton(name, io.now().toISOString().slice(0, 10));
      for (const [path, content] of files) await writeAtomic(join(temp, path), content);
      await chmod(temp, 0o777 & ~process.umask()); // mkdtemp makes it private
      await rename(temp, target);
      io.stdout(`Created ${shown}:`);
      for (const path of files.keys()) io.stdout(`  ${path}`);
      io.stdout(`Next: edit the plan, then run: ${io.cli} lint ${shellWord(name, true)}`);
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
    return EXIT.ok;
  },
};
