import { isMap, isScalar, LineCounter, parseDocument, type Scalar } from 'yaml';
import type { Problem } from '../../../problem.js';

/**
 * BMAD-METHOD's `sprint-status.yaml` (v6: `{implementation_artifacts}/sprint-status.yaml`, by
 * default `_bmad-output/implementation-artifacts/`; v6 alphas: `docs/sprint-artifacts/`), as
 * BMAD's own script reads it (bmad-sprint-planning/scripts/sprint_plan.py): `development_status`
 * maps `epic-N`, `N-M-slug` (a story; `2-6a-…` a split story) and `epic-N-retrospective` to a
 * status, in the order the file lists them. Read with the `yaml` package, whose nodes know their
 * source range, so that a status is written as one scalar and every other byte is kept.
 */

export type BmadEntryKind = 'epic' | 'story' | 'retrospective';

/** The statuses BMAD's template defines (sprint-status-template.yaml), by kind. */
export const BMAD_STATUSES: Readonly<Record<BmadEntryKind, readonly string[]>> = {
  epic: ['backlog', 'in-progress', 'done'],
  story: ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'],
  retrospective: ['optional', 'done'],
};

/**
 * v6 alpha statuses still in the wild, read by their modern meaning as sprint_plan.py's
 * LEGACY_STATUS does (`completed`: the alphas' retrospective done).
 */
const LEGACY: Readonly<Record<string, string>> = {
  drafted: 'ready-for-dev',
  contexted: 'in-progress',
  completed: 'done',
};

/**
 * A status as a story file's `Status:` line writes it, read as a sprint-status value: in lower
 * case, the words of its leading phrase joined by hyphens (`IN PROGRESS ⏳ (…)`: `in-progress`),
 * a legacy value by its modern meaning (`drafted`: `ready-for-dev`).
 */
export function writtenStatus(raw: string): string {
  const lower = raw.toLowerCase();
  const phrase = /^[a-z]+(?:[ -][a-z]+)*/.exec(lower)?.[0].replace(/ /g, '-') ?? lower;
  return LEGACY[phrase] ?? phrase;
}

// sprint_plan.py's key grammar (EPIC_KEY_RE, RETRO_KEY_RE, STORY_KEY_RE).
const EPIC_KEY = /^epic-(\d+)$/;
const RETRO_KEY = /^epic-(\d+)-retrospective$/;
const STORY_KEY = /^(\d+)-(\d+[a-z]?)-./;

/** Where a status value sits in the file: the scalar's own characters, quotes included. */
export interface BmadValue {
  start: number;
  end: number;
  /** The quote it is written with (`''`: plain), kept when it is rewritten. */
  quote: '' | "'" | '"';
}

export interface BmadEntry {
  key: string;
  kind: BmadEntryKind;
  epic: number;
  /** A story's number as its file's heading writes it (`Story 1.2`, `2.6a`). */
  number?: string;
  /** The status as written (undefined: the key has no value). */
  raw: string | undefined;
  /** The status as BMAD's tools read it (legacy values mapped); undefined: not one of its kind's. */
  status: string | undefined;
  /** A story whose status BMAD does not define (`cancelled`, `wont-do`): left out, never marked. */
  setAside: boolean;
  /** 1-based line of the key. */
  line: number;
  /** Undefined when the value is not a plain or quoted scalar the loop may rewrite. */
  value: BmadValue | undefined;
}

export interface SprintStatus {
  /** Epics, stories and retrospectives, in the file's order. */
  entries: BmadEntry[];
  /** `story_location` as written (`{project-root}/…`, a relative or an absolute path). */
  storyLocation: string | undefined;
  problems: Problem[];
}

function classify(key: string): { kind: BmadEntryKind; epic: number; number?: string } | undefined {
  const retro = RETRO_KEY.exec(key);
  if (retro) return { kind: 'retrospective', epic: Number(retro[1]) };
  const epic = EPIC_KEY.exec(key);
  if (epic) return { kind: 'epic', epic: Number(epic[1]) };
  const story = STORY_KEY.exec(key);
  if (story) return { kind: 'story', epic: Number(story[1]), number: `${story[1]}.${story[2]}` };
  return undefined;
}

const QUOTES: Record<string, BmadValue['quote'] | undefined> = {
  PLAIN: '',
  QUOTE_SINGLE: "'",
  QUOTE_DOUBLE: '"',
};

function valueOf(
  source: string,
  node: unknown,
): { raw: string | undefined; value: BmadValue | undefined } {
  if (node === null || node === undefined) return { raw: undefined, value: undefined };
  if (!isScalar(node)) return { raw: undefined, value: undefined };
  const scalar = node as Scalar;
  const raw = scalar.value === null ? undefined : String(scalar.value);
  const quote = QUOTES[scalar.type ?? ''];
  const range = scalar.range;
  const editable =
    raw !== undefined &&
    quote !== undefined &&
    range !== undefined &&
    range !== null &&
    // Written as read: no escapes, no line break, so rewriting it rewrites this value alone.
    source.slice(range[0], range[1]) === `${quote}${raw}${quote}` &&
    scalar.tag === undefined &&
    scalar.anchor === undefined;
  return { raw, value: editable ? { start: range[0], end: range[1], quote } : undefined };
}

/** Reads a sprint-status.yaml: its entries in order, `story_location`, and what is wrong. */
export function readSprintStatus(source: string, path: string): SprintStatus {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false });
  const problems: Problem[] = [];
  for (const error of doc.errors) {
    problems.push({
      severity: 'error',
      path,
      line: lines.linePos(error.pos[0]).line,
      message: `${path} is not valid YAML: ${error.message.split('\n')[0]}`,
      fix: 'Fix the YAML (BMAD’s bmad-sprint-planning can validate or rebuild it).',
    });
  }
  if (problems.length > 0) return { entries: [], storyLocation: undefined, problems };
  const root = doc.contents;
  const dev = isMap(root) ? root.get('development_status', true) : undefined;
  const location = isMap(root) ? root.get('story_location') : undefined;
  const storyLocation = typeof location === 'string' && location !== '' ? location : undefined;
  if (!isMap(dev)) {
    return {
      entries: [],
      storyLocation,
      problems: [
        {
          severity: 'error',
          path,
          line: 1,
          message: 'it has no `development_status` mapping.',
          fix: 'Run BMAD’s bmad-sprint-planning to generate it from the epics.',
        },
      ],
    };
  }
  const entries: BmadEntry[] = [];
  // The keys whose epic is numbered with a dot (`epic-7.6`, `7.6-1-slug`): named in one warning.
  const dotted: { key: string; line: number }[] = [];
  // The other keys that are no epic, story or retrospective key (`prep-1-setup-ci`), and those
  // with a letter after an epic's number: one warning each kind, where the first of it was.
  const unread = { plain: new UnreadKeys(), lettered: new UnreadKeys() };
  for (const pair of dev.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    const at = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    const line = at === undefined ? 1 : lines.linePos(at).line;
    const kind = key === undefined ? undefined : classify(key);
    if (key !== undefined && kind === undefined && DOTTED_EPIC.test(key)) {
      dotted.push({ key, line });
      continue;
    }
    if (key === undefined) {
      problems.push(unreadWarning([{ key: undefined, line }], false, path));
      continue;
    }
    if (kind === undefined) {
      // A letter after an epic's number (`1a-1-memory`, `epic-1a`): sprint_plan.py's grammar has
      // none either, so its planning would list the key as unrecognized again.
      const keys = LETTERED.test(key) ? unread.lettered : unread.plain;
      if (keys.at === -1) keys.at = problems.push(PLACEHOLDER) - 1;
      keys.list.push({ key, line });
      continue;
    }
    const { raw, value } = valueOf(source, pair.value);
    const mapped = raw === undefined ? undefined : (LEGACY[raw] ?? raw);
    const status =
      mapped !== undefined && BMAD_STATUSES[kind.kind].includes(mapped) ? mapped : undefined;
    if (status === undefined && raw !== undefined && kind.kind === 'story') {
      // BMAD's status view lists such a story as illegal and carries on without it.
      problems.push({
        severity: 'warning',
        path,
        line,
        message: `"${raw}" is not a status BMAD defines for a story ("${key}"): BMAD lists it as illegal and leaves the story out, and so does the loop (set aside: finished for the plan, never marked).`,
        fix: `Write one of: ${BMAD_STATUSES.story.join(', ')}.`,
      });
    } else if (status === undefined) {
      problems.push({
        severity: kind.kind === 'story' ? 'error' : 'warning',
        path,
        line,
        message:
          raw === undefined
            ? `"${key}" has no status.`
            : `"${raw}" is not a status of ${kind.kind === 'story' ? 'a story' : `an ${kind.kind}`} ("${key}").`,
        fix: `Write one of: ${BMAD_STATUSES[kind.kind].join(', ')}.`,
      });
    } else if (value === undefined) {
      problems.push({
        severity: 'warning',
        path,
        line,
        message: `The status of "${key}" is not a plain or quoted scalar, so the loop does not rewrite it.`,
        fix: `Write it as \`${key}: ${status}\`.`,
      });
    }
    const setAside = kind.kind === 'story' && raw !== undefined && status === undefined;
    entries.push({ key, ...kind, raw, status, setAside, line, value });
  }
  for (const lettered of [false, true]) {
    const keys = lettered ? unread.lettered : unread.plain;
    if (keys.at !== -1) problems[keys.at] = unreadWarning(keys.list, lettered, path);
  }
  if (dotted.length > 0) problems.push(dottedWarning(dotted, path));
  return { entries: ownNumbers(entries), storyLocation, problems };
}

/** A letter after an epic's number: `epic-1a`, a story `1a-1-memory`. */
const LETTERED = /^(?:epic-)?\d+[a-z]+(?:-|$)/;

/** Keys of one kind the loop does not read, and where their warning goes among the problems. */
class UnreadKeys {
  readonly list: { key: string; line: number }[] = [];
  /** The index of the warning's place in the problems (-1: no such key yet). */
  at = -1;
}

/** What holds an unread keys' warning's place until all of them are known. */
const PLACEHOLDER: Problem = { severity: 'warning', path: '', line: 1, message: '' };

/** How many keys a warning about many names, each with its line (`"k" (line 4)`). */
const SHOWN = 5;

/** The first SHOWN keys with their lines, and how many more there are. */
function keysWithLines(keys: readonly { key: string; line: number }[]): string {
  const shown = keys.slice(0, SHOWN).map((k) => `"${k.key}" (line ${k.line})`);
  return `${shown.join(', ')}${keys.length > SHOWN ? `, and ${keys.length - SHOWN} more` : ''}`;
}

/**
 * The keys of `development_status` that are no epic, story or retrospective key (a project's
 * `prep-1-setup-ci`, `prep-2-…`, a dozen of them; with `lettered`, a letter after an epic's
 * number: `epic-1a`, `1a-1-memory`): the loop reads none of them, as sprint_plan.py's grammar
 * reads none (its status and validate list each as unrecognized). One key is named on its line,
 * as it always was; several in one warning, on the first, with how many and the first few lines.
 */
function unreadWarning(
  keys: readonly { key: string | undefined; line: number }[],
  lettered: boolean,
  path: string,
): Problem {
  const n = keys.length;
  const first = keys[0]!;
  // After one key's name, a colon; after a list of keys, a sentence of its own.
  const then = n === 1 ? ': ' : '. ';
  const why = lettered
    ? `${then}BMAD's sprint planning reads no letter after an epic's number either, and lists ${n === 1 ? 'the key' : 'such keys'} as unrecognized`
    : n === 1
      ? ''
      : ". BMAD's sprint planning reads none of them either, and lists such keys as unrecognized";
  return {
    severity: 'warning',
    path,
    line: first.line,
    message:
      n === 1
        ? `${first.key === undefined ? 'This key' : `"${first.key}"`} is no epic, story or retrospective key, so it is not read${why}.`
        : `${n} keys are no epic, story or retrospective key, so they are not read: ${keysWithLines(keys as { key: string; line: number }[])}${why}.`,
    fix: lettered
      ? `Number the epic with digits alone (\`epic-2\`, its stories \`2-1-slug\`), here and in ${n === 1 ? 'its' : 'their'} story files' names.`
      : n === 1
        ? 'Write `epic-N`, `N-M-story-slug` or `epic-N-retrospective`.'
        : "Write each as `epic-N`, `N-M-story-slug` or `epic-N-retrospective`, or move the keys that track no story out of `development_status` (sprint planning keeps the file's other top-level keys).",
  };
}

/** An epic numbered with a dot: `epic-7.6`, `epic-7.6-retrospective`, a story `7.6-1-slug`. */
const DOTTED_EPIC = /^(?:epic-)?\d+\.\d+(?:-|$)/;

/**
 * One warning for every key whose epic is numbered with a dot (a project's epic 7.6 put in
 * between 7 and 8): sprint_plan.py's grammar numbers an epic with digits alone, so BMAD's
 * sprint planning lists them as unrecognized, and the loop reads none of them. Named once, on
 * the first, with how many and the first few lines, as a project writes dozens of them.
 */
function dottedWarning(dotted: readonly { key: string; line: number }[], path: string): Problem {
  const n = dotted.length;
  const epics = [...new Set(dotted.map((d) => /^(?:epic-)?(\d+\.\d+)/.exec(d.key)![1]!))];
  return {
    severity: 'warning',
    path,
    line: dotted[0]!.line,
    message: `${n === 1 ? 'One key numbers its epic' : `${n} keys number their epic`} with a dot, so ${n === 1 ? 'it is' : 'they are'} not read: ${keysWithLines(dotted)}. BMAD's sprint planning reads an epic's number as digits alone and lists such keys as unrecognized; the loop runs none of these stories.`,
    fix: `Number ${epics.length === 1 ? `epic ${epics[0]}` : `epics ${epics.join(', ')}`} with a whole number no epic has (\`epic-N\`, its stories \`N-1-slug\`), here and in ${epics.length === 1 ? 'its' : 'their'} story files' names.`,
  };
}

/** A story key's further number: `0` of `3-5-0-cleanup` (`3-5-cleanup` has none). */
const FURTHER = /^\d+-\d+[a-z]?-(\d+)-./;

/**
 * Each story its own number: BMAD's keys identify its stories, and `3-5-0-cleanup` and
 * `3-5-1-directory-manager` (an epic 3.5's stories, as some projects number them) are both story
 * 3.5 by the key's grammar; where two stories would share a number, each that has a further
 * number takes it (`3.5.0`, `3.5.1`), as their files' headings write it (`# Story 3.5.0: …`).
 */
function ownNumbers(entries: BmadEntry[]): BmadEntry[] {
  const count = new Map<string, number>();
  for (const e of entries) if (e.number) count.set(e.number, (count.get(e.number) ?? 0) + 1);
  return entries.map((e) => {
    const further = FURTHER.exec(e.key)?.[1];
    if (!e.number || further === undefined || count.get(e.number)! < 2) return e;
    return { ...e, number: `${e.number}.${further}` };
  });
}

export class StaleSprintStatusError extends Error {
  constructor(readonly entry: BmadEntry) {
    super(
      `The status of "${entry.key}" on line ${entry.line} no longer reads "${entry.raw}"; read sprint-status.yaml again.`,
    );
    this.name = 'StaleSprintStatusError';
  }
}

/**
 * The file with one entry's status set to `status`: that scalar alone is rewritten, in its own
 * quotes; comments, key order, line endings and the rest of the bytes are kept. BMAD's own flows
 * also refresh `last_updated`; the loop does not (one scalar an edit). Unchanged when the entry
 * has that status already; throws when the file no longer has the value the entry was read with.
 */
export function setSprintStatus(source: string, entry: BmadEntry, status: string): string {
  const value = entry.value;
  if (value === undefined || entry.raw === undefined) {
    throw new Error(
      `The status of "${entry.key}" on line ${entry.line} is not a plain or quoted scalar; the loop does not rewrite it.`,
    );
  }
  if (!BMAD_STATUSES[entry.kind].includes(status)) {
    throw new Error(`"${status}" is not a status of a BMAD ${entry.kind}.`);
  }
  const written = `${value.quote}${entry.raw}${value.quote}`;
  if (source.slice(value.start, value.end) !== written) throw new StaleSprintStatusError(entry);
  if (entry.raw === status) return source;
  return `${source.slice(0, value.start)}${value.quote}${status}${value.quote}${source.slice(value.end)}`;
}
