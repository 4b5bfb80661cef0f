export * from './flowchart.js';
export * from './marker.js';
export * from './start.js';
export * from './replies.js';
export * from './checkRun.js';
export * from './gate.js';
export * from './complete.js';
export * from './actors.js';
