import { access, chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { planSkeleton } from '../../core/index.js';
import { InputError, writeAtomic } from '../files.js';
import { EXIT, DIR_OPTION, type CommandSpec, planDirShown, needPlanName } from './shared.js';

export const init: CommandSpec = {
  usage: 'coder-loop init <PlanName> [--dir <plansDir>]',
  summary: 'scaffold the plan directory from templates',
  options: DIR_OPTION,
  async run(args, io) {
    const name = needPlanName(args.positionals[0]);
    const target = join(args.plansDir, name);
    const shown = planDirShown(args, name);
    const exists = await access(target).then(
      () => true,
      () => false,
    );
    if (exists)
      throw new InputError(`${shown}: already exists; coder-loop init will not overwrite it.`);
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
      io.stdout(`Next: edit the plan, then run: coder-loop lint ${JSON.stringify(name)}`);
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
    return EXIT.ok;
  },
};
