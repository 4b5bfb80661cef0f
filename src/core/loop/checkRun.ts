import { encodePath } from '../markdown.js';
import { flowchart, NODES, type NodeId } from './flowchart.js';

export const CHECK_NAME = 'coder-loop';

export interface CheckRunView {
  mode: 'plan' | 'quick';
  node: NodeId;
  title: string;
  /** What happens next, in one or two sentences. */
  next: string;
  attempt?: { number: number; of: number };
  /** Repository paths to link (plan files). */
  links?: { label: string; path: string }[];
}

/** The `coder-loop` check run's output: where the PR stands, the flowchart, what is next. */
export function checkRunOutput(
  view: CheckRunView,
  repoUrl: string,
  ref: string,
): { title: string; summary: string; text: string } {
  const summary = [
    `**${NODES[view.node]}** — ${view.next}`,
    view.attempt
      ? `\nCI attempts failed so far: ${view.attempt.number} of ${view.attempt.of}.`
      : '',
  ].join('');
  const text = [
    '```mermaid',
    flowchart(view.mode, view.node),
    '```',
    ...(view.links?.length
      ? [
          '',
          '**Plan files**',
          '',
          ...view.links.map(
            (l) => `- [${l.label}](${repoUrl}/blob/${encodePath(ref)}/${encodePath(l.path)})`,
          ),
        ]
      : []),
  ].join('\n');
  return { title: view.title, summary, text };
}
