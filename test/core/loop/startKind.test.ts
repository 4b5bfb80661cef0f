import { phaseInteger } from '../../../src/core/loop/messages/phaseName.js';
import {
  chooseAnyPlan,
  kindPhaseBranch,
  plansOfAnyKind,
} from '../../../src/core/loop/phasePlan/startKind.js';

/** Start → the plan, over every kind (SPEC §2b): one row per situation. */

const config = { plansDir: 'docs/plans' };
const TAGS = '{ "master": { "tasks": [] }, "feat": { "tasks": [] } }';
const paths = [
  'docs/plans/Launch/01_Master Plan/01_Checklist.md',
  'specs/auth/tasks.md',
  '.kiro/specs/auth/tasks.md',
  '.kiro/specs/billing/tasks.md',
  '.taskmaster/tasks/tasks.json',
  'src/tasks.md',
];
const { plans } = plansOfAnyKind(config, paths, new Map([['.taskmaster/tasks/tasks.json', TAGS]]));

const chosen = (requested: string | undefined, list = plans) => {
  const c = chooseAnyPlan('docs/plans', list, requested);
  if ('reply' in c) return c.reply.split('\n')[0];
  return c.kind === 'coder' ? `coder ${c.name}` : `${c.plan.kind} ${c.plan.path} as ${c.label}`;
};

describe('chooseAnyPlan', () => {
  it.each<[string, string | undefined, string]>([
    ['a coder plan by name', 'Launch', 'coder Launch'],
    [
      'a coder plan by its checklist',
      'docs/plans/Launch/01_Master Plan/01_Checklist.md',
      'coder Launch',
    ],
    ['a Kiro plan by name', 'billing', 'kiro .kiro/specs/billing/tasks.md as billing'],
    ['a Task Master tag', 'feat', 'taskmaster .taskmaster/tasks/tasks.json as feat'],
    [
      'a tag by path#tag',
      '.taskmaster/tasks/tasks.json#master',
      'taskmaster .taskmaster/tasks/tasks.json as master',
    ],
    [
      'two plans named alike: refused',
      'auth',
      'Two plans are named `auth`; nothing was written. Name one by the path of its tasks file:',
    ],
    [
      'one of them by path',
      'specs/auth/tasks.md',
      'speckit specs/auth/tasks.md as specs/auth/tasks.md',
    ],
    [
      'a tagged tasks file by its path alone: which tag?',
      '.taskmaster/tasks/tasks.json',
      '`.taskmaster/tasks/tasks.json` holds 2 plans, one a tag; nothing was written. Name one:',
    ],
    [
      'no such plan',
      'nope',
      'There is no plan `nope`. Plans: `Launch`, `.kiro/specs/auth/tasks.md`, `billing`, `master`, `feat`, `specs/auth/tasks.md`.',
    ],
    [
      'several and no name: which one?',
      undefined,
      'Which plan? Run `/coder next <PlanName>` with one of:',
    ],
  ])('%s', (_name, requested, expected) => {
    expect(chosen(requested)).toBe(expected);
  });

  it('a tagged tasks file by its path alone lists a command for each tag', () => {
    const c = chooseAnyPlan('docs/plans', plans, '.taskmaster/tasks/tasks.json');
    expect(c).toEqual({
      reply:
        '`.taskmaster/tasks/tasks.json` holds 2 plans, one a tag; nothing was written. Name one:\n\n' +
        '- `/coder next .taskmaster/tasks/tasks.json#master`\n' +
        '- `/coder next .taskmaster/tasks/tasks.json#feat`',
      outcome: { state: 'choose-plan' },
    });
  });

  it('the only plan is taken without a name', () => {
    expect(
      chosen(
        undefined,
        plans.filter((p) => p.name === 'billing'),
      ),
    ).toBe('kiro .kiro/specs/billing/tasks.md as billing');
  });

  it('plans whose names make one lock branch: neither starts', () => {
    const { plans: two } = plansOfAnyKind(
      config,
      ['.kiro/specs/a-b/tasks.md', 'specs/A B/tasks.md'],
      new Map(),
    );
    expect(chosen('a-b', two)).toMatch(
      /^\*\*Plan required\.\*\* Plans `a-b` and `A B` would share/,
    );
  });

  it('`plans` globs choose what the loop sees, coder plans too', () => {
    const only = plansOfAnyKind({ ...config, plans: ['.kiro/specs/*/tasks.md'] }, paths, new Map());
    expect(only.plans.map((p) => p.name)).toEqual(['auth', 'billing']);
  });
});

describe('lock branches and record numbers of the other kinds', () => {
  it.each<[string, string, string, number]>([
    ['user-auth', '2', 'coder/user-auth/phase-2', 2],
    ['001-photo-albums', '3.1', 'coder/001-photo-albums/phase-3.1', 3],
    ['master', 'abc/..x', 'coder/master/phase-abc-.x', 0],
  ])('%s phase %s → %s', (label, number, branch, integer) => {
    expect(kindPhaseBranch(label, { number })).toBe(branch);
    expect(phaseInteger(number)).toBe(integer);
  });
});
