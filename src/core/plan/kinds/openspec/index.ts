/** OpenSpec's plans: the kind (`openspecKind`) and its reader. */
export * from './reader.js';
export * from './kind.js';
