/** Kiro's plans: the kind (`kiroKind`), its reader and its documents. */
export * from './reader.js';
export * from './kind.js';
