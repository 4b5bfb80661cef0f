import { checkPlanName, checkPlanPath, isPlanPath } from './plan/layout.js';

/** The `/coder` commands of SPEC §5. */
const COMMANDS = [
  'next',
  'run',
  'stop',
  'quick',
  'assess',
  'status',
  'retry',
  'resume',
  'release',
  'help',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface CoderCommand {
  name: CommandName;
  /** `/coder next <PlanName>`, `/coder run <PlanName>` and `/coder status <PlanName>`. */
  plan?: string;
}

export type ParsedComment =
  | { kind: 'none' }
  | { kind: 'command'; command: CoderCommand }
  | { kind: 'unknown'; verb: string }
  | { kind: 'invalid'; reason: string };

/** A command line longer than this is refused rather than read. */
const MAX_COMMAND_LINE = 500;

const COMMAND_LINE = /^ {0,3}\/coder(?:[ \t]+(.*))?$/i;

function firstNonEmptyLine(body: string): string | undefined {
  let from = body.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (from <= body.length) {
    let to = body.indexOf('\n', from);
    if (to === -1) to = body.length;
    const line = body.slice(from, to).replace(/\r$/, '');
    if (line.trim() !== '') return line;
    from = to + 1;
  }
  return undefined;
}

function unquote(text: string): string {
  const m = /^(["'`])(.*)\1$/.exec(text);
  return m ? m[2]! : text;
}

/**
 * Reads a comment: it is a command when its first non-empty line starts with `/coder` (up to
 * three spaces before it, any case). Quoted replies (`> /coder next`), code blocks and HTML
 * comments never start with `/coder`, so they never count.
 */
export function parseComment(body: string): ParsedComment {
  const line = firstNonEmptyLine(body);
  if (line === undefined) return { kind: 'none' };
  if (!/^ {0,3}\/coder(?:[ \t]|$)/i.test(line)) return { kind: 'none' };
  if (line.length > MAX_COMMAND_LINE) {
    return {
      kind: 'invalid',
      reason: `the command line is longer than ${MAX_COMMAND_LINE} characters`,
    };
  }
  const rest = (COMMAND_LINE.exec(line)?.[1] ?? '').trim();
  if (rest === '') return { kind: 'command', command: { name: 'help' } };
  const [verbWord = ''] = rest.split(/[ \t]+/);
  const verb = verbWord.toLowerCase();
  const name = COMMANDS.find((c) => c === verb);
  if (!name) return { kind: 'unknown', verb: verbWord };
  if (name !== 'next' && name !== 'run' && name !== 'status')
    return { kind: 'command', command: { name } };
  const plan = unquote(rest.slice(verbWord.length).trim());
  if (plan === '') return { kind: 'command', command: { name } };
  const problem = isPlanPath(plan) ? checkPlanPath(plan) : checkPlanName(plan);
  if (problem) return { kind: 'invalid', reason: problem };

  return { kind: 'command', command: { name, plan } };
}

export const HELP_TEXT = [
  'coder-loop commands (the first line of a comment):',
  '',
  '| command | what it does |',
  '| --- | --- |',
  '| `/coder next [PlanName]` | take the next phase of a plan: lock branch, `[~]` commit, pull request |',
  '| `/coder run [PlanName]` | like `/coder next`, and each phase merged after final verification starts the next one by itself |',
  '| `/coder stop` | end the run of this issue: the open phase stays as it is (what a coding agent is doing is not applied), nothing starts after it |',
  '| `/coder quick` | quick mode for this issue: a branch, a pull request and CI, no plan bookkeeping |',
  '| `/coder assess` | say whether this issue is quick or plan work, and why |',
  "| `/coder status [PlanName]` | the plan's phases, tasks, lock and pull request |",
  '| `/coder retry` | evaluate the CI gate again on the current head |',
  '| `/coder resume` | clear an escalation and evaluate again (architects and write users) |',
  '| `/coder release` | give the lock up: close the pull request and delete the branch |',
  '| `/coder help` | this text |',
].join('\n');
