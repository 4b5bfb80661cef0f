import type { NodeId } from './flowchart.js';

/**
 * What a handled event came to: the Action turns it into outputs and its job summary, the App
 * logs it. `node` is where the loop stands in the flowchart afterwards (when it moved).
 */
export interface LoopOutcome {
  state: string;
  node?: NodeId;
  mode?: 'plan' | 'quick';
  plan?: string;
  phase?: number;
  branch?: string;
  pullRequest?: number;
  reason?: string;
}
