import type { Problem } from '../../problem.js';
import type { KindReading, KindState } from './view.js';

/**
 * What one plan kind is — every fact the loop knows of another tool's plans, in the kind's own
 * folder (`kinds/<kind>/`), listed once in `registry.ts`. Shaped like an ESLint rule (its `meta`
 * beside its behaviour) and a release-please strategy (one folder a kind, one line in a map):
 * nothing outside the folder names the kind; discovery, the loop, the CLI, the agent's prompt and
 * every message that lists kinds read it from here.
 */
export interface PlanKindModule<Id extends string = string> {
  // — Its name —
  /** How configs, loop records and `coder-loop plans` name the kind: `[a-z]+`. */
  readonly id: Id;
  /** How replies, PR bodies and the CLI's messages name it. */
  readonly label: string;

  // — Where its plans live, and how they are found —
  /** The name of its tasks file, wherever it sits (`tasks.md`, `tasks.json`). */
  readonly tasksFile: string;
  /** Where its tasks files live by default, as globs from the repository root. */
  readonly globs: readonly string[];
  /**
   * The kind test, for a path whose name is `tasksFile`: `plan` (this kind's tasks file),
   * `never` (this kind's, and never run: a test no other kind's `plan` overrides), or undefined.
   */
  test(path: string): 'plan' | 'never' | undefined;
  /**
   * Its tasks files may sit anywhere (no folder names the kind): it reads a tasks file of its
   * name that no other kind's test claims.
   */
  readonly fallback?: boolean;
  /**
   * The tasks files, from the path alone, whose plan would hold a file under `dir` (its own
   * folder, its documents root, a folder it shares): `mayBePlanDocument` asks before any tree is
   * read. A file name in a folder the kind does not fix is `-`.
   */
  tasksFilesAt(dir: string): string[];
  /**
   * The files beyond its documents root that its plans read, from a path alone: `places`, a file
   * whose text says where a plan's other files are (a tool's config that names the folder of its
   * stories); `placed`, a file such a text may put in any folder (a story file, by its name). A
   * pull request that touches either has its trees' plans read (`mayBePlanDocument`), and what
   * each plan's `reads` then names is one of its documents (`isPlanDocument`), for an architect.
   */
  readonly beyondRoot?: {
    places(path: string): boolean;
    placed(path: string): boolean;
  };
  /** The folder every file of a plan's lives in, from its tasks file's folder (default: that folder). */
  documentsRoot?(folder: string): string;
  /** Folders every plan of the kind shares beside its own (none by default). */
  sharedFolders?(folder: string): string[];
  /**
   * What a tasks file found but never run says (a completed change, an archive): the folder it
   * counts under and the sentence for `n` of them. Undefined for a file that is run.
   */
  notRun?(path: string): { folder: string; why: (n: number) => string } | undefined;
  /**
   * The files whose text finds its plans beyond its `globs` (a config that names where the tool
   * writes its tasks file), read before discovery as a tagged kind's tasks file is; only where
   * the `plans` globs are the defaults.
   */
  discoveryReads?(paths: readonly string[]): string[];
  /**
   * Its tasks files, from `globbed` (the ones its globs found) and the text of what
   * `discoveryReads` named: those added, and those found that are no plan (a leftover copy), each
   * with why.
   */
  discover?(
    paths: readonly string[],
    texts: ReadonlyMap<string, string>,
    globbed: readonly string[],
  ): { plans: string[]; skipped: { path: string; why: string }[] };

  // — Its plans and documents —
  /**
   * Its tasks file holds several plans, each named by a tag (`<tasks file>#<tag>`); its text is
   * read to name them (`plansIn`), and each plan's sidecar is `<sidecar>/<tag>`.
   */
  readonly tagged?: boolean;
  /** The plans a tagged tasks file holds; `notAPlan` when the file is another tool's. */
  plansIn?(
    text: string,
    path: string,
  ): { names: string[]; notAPlan?: Problem; problems: Problem[] };
  /**
   * Where the tool records the tag its own commands take when none is named (a state file beside
   * the tasks file), and that tag read from the file's text: what a message naming the tags says.
   */
  currentTag?(
    tasksPath: string,
  ): { path: string; read(text: string): string | undefined } | undefined;
  /** The documents a plan needs beside its tasks file: one of `names` each, said as `what`. */
  readonly required: readonly { readonly names: readonly string[]; readonly what: string }[];
  /** Problems of the tasks file itself that stop a plan before its reader runs (its syntax). */
  validateTasksFile?(path: string, source: string): Problem[];
  /**
   * The paths (from the repository root) beyond the tasks file whose text `open` reads, those in
   * the tree read before it opens. Asked again with every text read so far, so that a kind may
   * name more once it has read its tasks file (none by default).
   */
  reads?(plan: KindFile, texts: ReadonlyMap<string, string>): string[];
  /** A plan's name from its tasks file's path (default: the name of the tasks file's folder). */
  planName?(path: string): string;

  // — Its marks, read and written —
  /**
   * What a start writes on a phase's open tasks (undefined: the tool has no in-progress mark, so
   * the lock branch and the pull request are the record) and what a completion writes; `starts`
   * names what the start's mark is on, in its reply (default: the phase's tasks).
   */
  readonly marks: {
    readonly start: string | undefined;
    readonly done: string;
    readonly starts?: string;
  };
  /**
   * Opens a plan: `source` is its tasks file, `context` the problems of its documents, `present`
   * every path of the tree, `files` the text of the tasks file and of what `reads` names.
   */
  open(
    plan: KindFile,
    source: string,
    context: Problem[],
    present: ReadonlySet<string>,
    files: ReadonlyMap<string, string>,
  ): KindReading;
  /**
   * Each task's state as the kind's own reader reads `source`, by its id; and, by a label naming
   * it (`2. (the phase's own line)`), the mark of a phase's own line or status that is none of its
   * tasks (a top-level task over sub-tasks), as written (`[x]`, `done`): what `mark` reports.
   */
  states(plan: KindFile, source: string): Map<string, string>;
  /**
   * `source` with the tasks `ids` set to `state` in the kind's own marks: one byte, or one JSON
   * value, each.
   */
  setTasks(plan: KindFile, source: string, ids: ReadonlySet<string>, state: KindMarkState): string;

  // — Words —
  /** What the agent must not edit, in its prompt's rule: its folders, as words or a path. */
  readonly agentMayNotEdit: { readonly words: string } | { readonly path: string };
}

/** A task state `coder-loop mark` writes. */
export type KindMarkState = Exclude<KindState, 'set-aside'>;

/** A plan as its kind sees it: where its tasks file and documents are, and its tag. */
export interface KindFile {
  /** The tasks file's path from the repository root. */
  path: string;
  /** The folder the plan's other files sit in. */
  folder: string;
  /** The loop's own folder for this plan's log, reports and checkpoint. */
  sidecar: string;
  name: string;
  /** The tag the plan is, for a tagged kind. */
  tag?: string;
}

/** A kind, its id kept as a literal type for the registry's list. */
export function defineKind<const Id extends string>(kind: PlanKindModule<Id>): PlanKindModule<Id> {
  return kind;
}
