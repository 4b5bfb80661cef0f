export * from './env.js';
export * from './events.js';
export { startPhase } from './next.js';
export { startQuick } from './quick.js';
export { assess, release, status } from './manage.js';
