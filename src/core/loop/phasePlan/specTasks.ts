import type { Phase } from '../../plan/checklistModel.js';
import type { KindPhase } from '../../plan/kinds/plan.js';
import type { SpecTask } from '../snapshot/pullSnapshot.js';
import { opensWithId } from '../../plan/text.js';

/** The tasks of a coder plan's phase, as Passes Spec? reads them. */
export function specTasksOfPhase(phase: Pick<Phase, 'tasks'>): SpecTask[] {
  return phase.tasks.map((t) => ({
    id: t.id,
    text: t.text,
    state: t.state,
    writtenId: opensWithId(t.text, t.id),
  }));
}

/** The tasks of another kind's phase, as Passes Spec? reads them. */
export function specTasksOfKindPhase(phase: Pick<KindPhase, 'tasks'>): SpecTask[] {
  return phase.tasks.map((t) => {
    // A kind whose tasks cite no requirements in their text (`requirements` absent, not empty)
    // keeps each task's id in a field of its own: the id is written, not read from the text.
    const idField = t.requirements === undefined;
    const detail = [t.details, t.testStrategy].filter(Boolean).join('\n');
    return {
      id: t.id,
      text: t.text,
      state: t.state,
      ...(t.optional ? { optional: true } : {}),
      ...(t.requirements?.length ? { requirements: t.requirements } : {}),
      ...(detail ? { detail } : {}),
      ...(t.testStrategy ? { criterion: t.testStrategy } : {}),
      writtenId: idField || opensWithId(t.text, t.id),
    };
  });
}
