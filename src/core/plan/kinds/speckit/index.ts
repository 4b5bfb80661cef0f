/** spec-kit's plans: the kind (`speckitKind`) and its reader. */
export * from './reader.js';
export * from './kind.js';
