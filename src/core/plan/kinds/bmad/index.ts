/**
 * BMAD-METHOD v6: its sprint-status.yaml (the plan: stories in `development_status` order) and
 * its story files (a story's tasks), read and written one mark or one scalar at a time.
 */
export * from './sprintStatus.js';
export * from './story.js';
export * from './paths.js';
export * from './plan.js';
export * from './kind.js';
