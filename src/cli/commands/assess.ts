import { join } from 'node:path';
import {
  assessComplexity,
  CONFIG_PATH,
  DEFAULT_CONFIG,
  describeAssessment,
  formatProblem,
  parseConfigText,
} from '../../core/index.js';
import { InputError, readText } from '../files.js';
import { EXIT, UsageError, type CommandSpec, parseCount } from './shared.js';

export const assess: CommandSpec = {
  usage: 'assess [--title T] [--body B] [--files N] [--lines N] [--json]',
  summary: 'quick or plan, with reasons (limits from .github/coder.yml when present)',
  options: {
    help: { type: 'boolean', short: 'h' },
    dir: { type: 'string' },
    title: { type: 'string' },
    body: { type: 'string' },
    files: { type: 'string' },
    lines: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(args, io) {
    if (args.positionals.length > 0) throw new UsageError('assess takes options only');
    let { quick } = DEFAULT_CONFIG;
    const configFile = join(io.cwd, CONFIG_PATH);
    const text = await readText(configFile).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text !== undefined) {
      const { config, problems } = parseConfigText(text, CONFIG_PATH);
      if (!config) {
        for (const p of problems) io.stderr(formatProblem(p, io.cli));
        throw new InputError(`${CONFIG_PATH} is invalid.`);
      }
      quick = config.quick;
    }
    const files = parseCount(args.values.files, 'files');
    const lines = parseCount(args.values.lines, 'lines');
    const assessment = assessComplexity(
      {
        title: (args.values.title as string | undefined) ?? '',
        body: (args.values.body as string | undefined) ?? '',
        ...(files !== undefined ? { files } : {}),
        ...(lines !== undefined ? { lines } : {}),
      },
      quick,
    );
    io.stdout(args.values.json ? JSON.stringify(assessment) : describeAssessment(assessment));
    return EXIT.ok;
  },
};
