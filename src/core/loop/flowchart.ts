/**
 * The seed's flowchart (seed 002), as the check run and the Action's job summary show it: the
 * node where a loop pull request stands is highlighted.
 */
export const NODES = {
  Start: 'Start',
  AssessTask: 'Assess Task Complexity',
  QuickMode: 'Quick Mode',
  ValidateContext: 'Context valid?',
  LockCheck: 'Locked?',
  MarkInProgress: 'Mark [~]',
  TDD: 'Implementation (TDD)',
  Verification: 'Verification',
  Debug: 'Debug & Fix',
  ValidateVsSpec: 'Passes Spec?',
  Revise: 'Revise Code',
  CodeReview: 'Code Review',
  LockCheck2: 'Touched Locked Items?',
  MarkComplete: 'Mark [x]',
  FinalVerify: 'Final Verification',
  Report: 'Report, context, log',
  End: 'Complete',
  Escalate: 'Escalated to architect',
} as const;

export type NodeId = keyof typeof NODES;

const PLAN_GRAPH = `flowchart TD
    Start["Start: /coder next"] --> ValidateContext{"Context valid?"}
    ValidateContext -- No --> PlanRequired["Return to Orchestrator: Plan Required"]
    ValidateContext -- Yes --> LockCheck{"Locked? (lock branch)"}
    LockCheck -- Yes --> SelectNext["Return to Orchestrator: Select Next Item"]
    LockCheck -- No --> MarkInProgress["Mark [~] + log Coder started"]
    MarkInProgress --> TDD["Implementation (TDD): push to the branch"]
    TDD --> Verification{"Verification: CI"}
    Verification -- Fail --> Debug["Debug & Fix (attempt k of N)"]
    Debug --> TDD
    Debug -- N failures --> Escalate["Escalate to Architect"]
    Verification -- Pass --> ValidateVsSpec{"Passes Spec?"}
    ValidateVsSpec -- No --> Revise["Revise Code (attempt k of N)"]
    Revise --> TDD
    Revise -- N failures --> Escalate
    ValidateVsSpec -- Yes --> CodeReview{"Code Review"}
    CodeReview -- Changes requested --> TDD
    CodeReview -- Approved --> LockCheck2{"Touched Locked Items?"}
    LockCheck2 -- Yes --> Escalate
    LockCheck2 -- No --> MarkComplete["Mark [x], report, context, log"]
    MarkComplete --> FinalVerify{"Final Verification: CI"}
    FinalVerify -- Fail --> TDD
    FinalVerify -- Pass --> End["Return to Orchestrator: Phase complete"]`;

const QUICK_GRAPH = `flowchart TD
    Start["Start: coder:quick or /coder quick"] --> AssessTask{"Assess Task Complexity"}
    AssessTask --> QuickMode["Quick Mode: branch + pull request"]
    QuickMode --> Verification{"Run basic tests: CI"}
    Verification -- Fail --> QuickMode
    Verification -- Pass --> LockCheck2{"Touched Locked Items?"}
    LockCheck2 -- No --> End["Return result"]
    LockCheck2 -- Yes --> CodeReview{"Architect's approval"}
    CodeReview -- Architect --> End
    CodeReview -- Anyone else --> Escalate["Escalate to Architect"]`;

const GRAPH_NODE_OF: Partial<Record<NodeId, string>> = {
  ValidateContext: 'ValidateContext',
  LockCheck: 'LockCheck',
  MarkInProgress: 'MarkInProgress',
  TDD: 'TDD',
  Verification: 'Verification',
  Debug: 'Debug',
  ValidateVsSpec: 'ValidateVsSpec',
  Revise: 'Revise',
  CodeReview: 'CodeReview',
  LockCheck2: 'LockCheck2',
  MarkComplete: 'MarkComplete',
  Report: 'MarkComplete',
  FinalVerify: 'FinalVerify',
  End: 'End',
  Escalate: 'Escalate',
  Start: 'Start',
  AssessTask: 'AssessTask',
  QuickMode: 'QuickMode',
};

/** The mermaid source of the loop with `current` highlighted. */
export function flowchart(mode: 'plan' | 'quick', current: NodeId): string {
  const graph = mode === 'plan' ? PLAN_GRAPH : QUICK_GRAPH;
  const node = GRAPH_NODE_OF[current] ?? current;
  return `${graph}\n    classDef current fill:#ffd33d,stroke:#24292f,stroke-width:3px,color:#24292f\n    class ${node} current`;
}
