export * from './payload.js';
export * from './redact.js';
export * from './changes.js';
export * from './decide.js';
export * from './prompt.js';
export * from './replies.js';
export { escapeInline } from './escape.js';
export * from './usage.js';
export * from './limit.js';
