import { formatProblem } from '../../problem.js';
import { ciGateProblems, isWorkflowPath, parseWorkflow, type Workflow } from '../../workflows.js';

/**
 * At a start, in the Action: does the loop's own workflow hear about this repository's CI? Its
 * `workflow_run` trigger names the workflows it waits for; a name no workflow here has leaves the
 * pull request waiting forever, so the start's reply says which line to change. Read from the
 * default branch's tree (the texts of `.github/workflows/`); nothing to say without the loop's
 * workflow path (the App hears every check suite).
 */
export function ciGateAtStart(
  loopWorkflow: string | undefined,
  files: ReadonlyMap<string, string>,
  texts: ReadonlyMap<string, string> | undefined,
): { need: 'texts'; paths: string[] } | { note?: string } {
  if (loopWorkflow === undefined || !files.has(loopWorkflow)) return {};
  const paths = [...files.keys()].filter(isWorkflowPath);
  const unread = paths.filter((p) => !texts?.has(p));
  if (unread.length > 0) return { need: 'texts', paths: unread };
  const workflows: Workflow[] = [];
  for (const path of paths) {
    const read = parseWorkflow({ path, text: texts!.get(path)! });
    if ('workflow' in read) workflows.push(read.workflow);
  }
  const loop = workflows.find((w) => w.path === loopWorkflow);
  if (!loop) return {};
  const problems = ciGateProblems(loop, workflows);
  if (problems.length === 0) return {};
  return {
    note: [
      "**CI will not reach this pull request's gate as the workflows stand:**",
      '',
      ...problems.map((p) => `- ${formatProblem(p)}`),
    ].join('\n'),
  };
}
