export * from './problem.js';
export * from './spelling.js';
export * from './config.js';
export * from './configPath.js';
export * from './command.js';
export * from './assess.js';
export * from './plan/layout.js';
export * from './plan/text.js';
export * from './plan/checklist.js';
export {
  currentPhase,
  findTask,
  MARK_OF,
  readPhaseHeading,
  stateOfMark,
  type Checklist,
  type Phase,
  type Task,
  type TaskMark,
  type TaskState,
} from './plan/checklistModel.js';
export * from './plan/mark.js';
export * from './plan/masterLog.js';
export * from './plan/checkpoint.js';
export * from './plan/report.js';
export * from './plan/validate.js';
export * from './plan/skeleton.js';
export * from './markdown.js';
export * from './loop/index.js';
export * from './agent/index.js';
export * from './workflows.js';
export * from './appRegistration.js';
export * from './cliCommand.js';
