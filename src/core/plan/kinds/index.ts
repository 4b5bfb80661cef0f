/** The plan kinds other tools write: where each is found, how each is read and marked. */
export * from './discovery.js';
export * from './jsonOffsets.js';
export * from './markdownDialect.js';
export * from './registry.js';
export type * from './kindModule.js';
