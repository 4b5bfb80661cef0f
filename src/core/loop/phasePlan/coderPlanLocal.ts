import { currentPhase, findTask, type Phase } from '../../plan/checklistModel.js';
import { markPhase, setTaskStates } from '../../plan/mark.js';
import type { PlanContext } from '../../plan/validate.js';
import type { PhasePlan } from './phasePlan.js';
import type { Refusal } from './planReading.js';

type Local = Pick<PhasePlan<Phase>, 'reading' | 'refusal' | 'phaseNamed' | 'workPhase' | 'mark'>;

/**
 * The coder layout's answers to the CLI (`coderPlan`'s part for a working copy): the checklist's
 * phases with each task's depth, Context valid?'s problems, the checklist's `[ ]`/`[~]`/`[x]`.
 * `dir` is the plan folder as messages name it; `checklist` the checklist's text.
 */
export function coderPlanLocal(
  name: string,
  dir: string,
  checklist: string | undefined,
  validated: () => PlanContext,
): Local {
  const refusal = (): Refusal | undefined => {
    const context = validated();
    const blocking = (context.checklist?.problems ?? context.problems).filter(
      (p) => p.severity === 'error',
    );
    if (context.checklist && blocking.length === 0) return undefined;
    return { problems: blocking, message: `${dir}: fix the checklist first.` };
  };
  const read = () => validated().checklist!;
  return {
    refusal,
    reading() {
      const context = validated();
      const current = context.checklist ? currentPhase(context.checklist) : undefined;
      const stop = refusal();
      return {
        title: name,
        names: { plan: name },
        subject: dir,
        phases: (context.checklist?.phases ?? []).map((p) => ({
          number: p.number,
          name: p.name,
          tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text, depth: t.depth })),
          finished: p.tasks.every((t) => t.state === 'done'),
        })),
        counted: stop === undefined,
        current: current?.number,
        complete: current === undefined,
        waiting: undefined,
        problems: context.problems,
        warnings: (context.checklist?.problems ?? []).filter((p) => p.severity === 'warning'),
        tally: false,
        stop,
      };
    },
    phaseNamed(number) {
      if (!/^\d+$/.test(number)) return { usage: '--phase takes a whole number' };
      const stop = refusal();
      if (stop) return { refused: stop };
      const phase = read().phases.find((p) => p.number === Number(number));
      return phase ? { phase } : { missing: `${name}: there is no Phase ${Number(number)}.` };
    },
    workPhase() {
      const current = currentPhase(read());
      return current ? { phase: current } : { missing: `${name}: the plan is complete.` };
    },
    mark(target, state) {
      let result;
      if ('phase' in target) result = markPhase(checklist!, target.phase, state);
      else {
        const task = findTask(read(), target.task);
        if (!task) return { missing: `${name}: there is no task ${target.task}.` };
        result = setTaskStates(checklist!, [task], state);
      }
      return {
        text: result.source,
        changes: result.changed.map((t) => `${t.id}: ${t.state} → ${state}`),
      };
    },
  };
}
