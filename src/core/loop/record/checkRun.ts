import { encodePath } from '../../markdown.js';
import { flowchart, NODES, type NodeId } from '../flowchart.js';

export const CHECK_NAME = 'coder-loop';

export interface CheckRunView {
  mode: 'plan' | 'quick';
  node: NodeId;
  title: string;
  /** What happens next, in one or two sentences. */
  next: string;
  attempt?: { number: number; of: number };
  /** The Passes Spec? table (`specTable` in specTable.ts), shown under the summary. */
  spec?: string;
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
    view.spec ? `\n\n${view.spec}` : '',
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

/**
 * The loop's state on a head, as the check run keeps it in `external_id` (and the commit-status
 * fallback in brackets): the flowchart node, then `;next=<N>` after the completion step. The one
 * place it is written and read.
 */
export interface CheckState {
  node: NodeId | undefined;
  next?: number;
}

export function encodeCheckState(state: { node: NodeId; next?: number | undefined }): string {
  return state.next === undefined ? state.node : `${state.node};next=${state.next}`;
}

export function decodeCheckState(text: string | null | undefined): CheckState {
  const [node, ...data] = (text ?? '').split(';');
  const next = data.map((d) => /^next=(\d+)$/.exec(d)?.[1]).find((n) => n !== undefined);
  return {
    node: node && Object.prototype.hasOwnProperty.call(NODES, node) ? (node as NodeId) : undefined,
    ...(next !== undefined ? { next: Number(next) } : {}),
  };
}
