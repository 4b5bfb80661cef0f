/** Task Master's plans: the kind (`taskmasterKind`), its reader and its opener. */
export * from './reader.js';
export * from './open.js';
export * from './kind.js';
