import type { PlanKindModule } from './kindModule.js';
import { speckitKind } from './speckit/index.js';
import { kiroKind } from './kiro/index.js';
import { taskmasterKind } from './taskmaster/index.js';
import { openspecKind } from './openspec/index.js';
import { bmadKind } from './bmad/index.js';

/**
 * The plan kinds of other tools the loop runs, one line each, in the order messages list them.
 * A kind is its folder (`kinds/<kind>/`); to add one, write its folder and add its line here.
 */
export const KINDS = [
  speckitKind,
  kiroKind,
  taskmasterKind,
  openspecKind,
  bmadKind,
] as const satisfies readonly PlanKindModule[];

/** The id of a kind of the registry. */
export type OtherKind = (typeof KINDS)[number]['id'];
