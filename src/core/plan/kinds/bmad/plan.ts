import type { Problem } from '../../../problem.js';
import { QUOTE_LIMIT, splitProblems, type KindContext, type KindPhase } from '../view.js';
import {
  bmadConfigCandidates,
  bmadProjectConfig,
  nextStory,
  storyDisagreement,
  storyFolders,
} from './paths.js';
import { BMAD_STATUSES, readSprintStatus, setSprintStatus } from './sprintStatus.js';
import { readStory, setStoryStatus, setStoryTasks, type BmadStory } from './story.js';

/**
 * A BMAD plan as the loop sees it: one project's sprint-status.yaml, its phases the stories in
 * the order `development_status` lists them, a phase's tasks the boxes under its story file's
 * `## Tasks / Subtasks`. BMAD keeps a story's state in two files — sprint-status.yaml (the one
 * its workflows go by) and the story's `Status:` line — so an edit here is a list of files, each
 * changed by one box byte, the `Status:` word or one YAML scalar.
 */

/** A story as a phase: the kind-neutral phase, with where BMAD keeps its state. */
export interface BmadPhase extends KindPhase {
  /** `1-2-account-management`: the story's key in sprint-status.yaml and its file's name. */
  key: string;
  /** Its status in sprint-status.yaml, as BMAD's tools read it. */
  status: string | undefined;
}

/** One file an edit changes: its path and its new text. */
export interface BmadFileEdit {
  path: string;
  text: string;
}

export interface BmadPlan {
  /** The sprint-status.yaml. */
  path: string;
  phases: BmadPhase[];
  current: BmadPhase | undefined;
  complete: boolean;
  waiting: string | undefined;
  problems: Problem[];
  warnings: Problem[];
  /** A start: the story `in-progress` in sprint-status.yaml (dev-story's step 4). */
  start(phase: BmadPhase): BmadFileEdit[];
  /**
   * A completion: every box of the story ticked, its `Status:` and its sprint-status.yaml value
   * `done` (the step bmad-code-review takes once a review approves).
   */
  finish(phase: BmadPhase): BmadFileEdit[];
  /** The story's boxes of `ids` set to `state` (the CLI's `mark` of tasks). */
  setTasks(phase: BmadPhase, ids: ReadonlySet<string>, state: 'todo' | 'done'): BmadFileEdit[];
  /** The phase's context: its story file quoted, the planning documents linked. */
  context(phase: BmadPhase): KindContext;
  /**
   * Why the story may not be marked `state`: under way or done without its file (create-story
   * writes it first), or set aside (a status BMAD does not define); undefined when it may.
   */
  refuseMark(phase: BmadPhase, state: 'todo' | 'doing' | 'done'): string | undefined;
  /** A config that could not be read: where story files were looked for without it. */
  withoutFile(path: string): string | undefined;
}

/** The folder of a path ('' at the root). */
function dirOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at === -1 ? '' : path.slice(0, at);
}

/** The last part of a path. */
function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * The folder a BMAD project's documents live in, which the agent must not edit: `_bmad-output/`
 * (v6: planning and implementation artifacts both), or the folder of an older layout's
 * sprint-status.yaml (`docs/sprint-artifacts/`; `docs/` itself is the project's own docs).
 */
export function bmadDocumentsRoot(sprintStatusPath: string): string {
  const folder = dirOf(sprintStatusPath);
  const output = /^(.*?(?:^|\/)_bmad-output)(?:\/|$)/.exec(folder);
  return output ? output[1]! : folder;
}

/**
 * The planning documents BMAD's create-story reads into a story (`{planning_artifacts}`: the
 * epics, PRD, architecture and UX design, whole), where the layout has them: `planning-artifacts/`
 * beside `implementation-artifacts/`.
 */
function planningDocuments(sprintStatusPath: string, present: ReadonlySet<string>) {
  const folder = dirOf(sprintStatusPath);
  if (baseOf(folder) !== 'implementation-artifacts') return [];
  const planning = `${dirOf(folder)}/planning-artifacts/`.replace(/^\//, '');
  const kinds: [string, RegExp][] = [
    ['Epics', /epic/i],
    ['PRD', /prd/i],
    ['Architecture', /architecture/i],
    ['UX design', /ux/i],
  ];
  const files = [...present]
    .filter(
      (p) => p.startsWith(planning) && p.endsWith('.md') && !p.slice(planning.length).includes('/'),
    )
    .sort();
  const links: KindContext['links'] = [];
  for (const [label, test] of kinds) {
    for (const path of files.filter((p) => test.test(baseOf(p)))) {
      if (!links.some((l) => l.path === path)) links.push({ label, path });
    }
  }
  return links;
}

/**
 * The files a BMAD plan is read from: its sprint-status.yaml and the configs its project may have
 * (`bmadConfigCandidates`) first, then — once their text is known — every file each story it lists
 * may have (`storyFolders`); the caller reads those of them that exist. `texts` holds what
 * was read.
 */
export function bmadReads(path: string, texts: ReadonlyMap<string, string>): string[] {
  const configs = bmadConfigCandidates(path);
  const source = texts.get(path);
  if (source === undefined) return [path, ...configs];
  const read = readSprintStatus(source, path);
  const { folders } = storyFolders(path, read.storyLocation, bmadProjectConfig(path, texts));
  return [
    ...new Set([
      path,
      ...configs,
      ...read.entries.filter((e) => e.kind === 'story').flatMap((e) => filesIn(folders, e.key)),
    ]),
  ];
}

/** A story's file in each of `folders`, in their order (`storyFileCandidates`). */
function filesIn(folders: readonly string[], key: string): string[] {
  return folders.map((f) => (f === '' ? `${key}.md` : `${f}/${key}.md`));
}

/** The markdown files of the tree by their file name: `1-2-login.md` → its paths. */
function filesByName(present: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of present) {
    if (!p.endsWith('.md')) continue;
    const name = baseOf(p);
    out.set(name, [...(out.get(name) ?? []), p]);
  }
  return out;
}

/** `account-management` from `1-2-account-management`: a story's name when its file has none. */
function slugName(key: string): string {
  return key.replace(/^\d+-\d+[a-z]?-/, '').replace(/-/g, ' ');
}

/**
 * Opens a BMAD plan: `paths` is every path of the tree, `texts` the text of what `bmadReads`
 * named. Errors stop a start (the file is no YAML, a story's status is none of BMAD's, the
 * current story's file is missing or has no task); warnings are told (a story file that says
 * another status than sprint-status.yaml, which is read as BMAD's own workflows read it).
 */
export function openBmad(
  path: string,
  paths: Iterable<string>,
  texts: ReadonlyMap<string, string>,
): BmadPlan {
  const present = new Set(paths);
  const source = texts.get(path);
  const problems: Problem[] = [];
  if (source === undefined) {
    problems.push({
      severity: 'error',
      path,
      message: 'sprint-status.yaml is missing.',
      fix: 'Restore it, or run BMAD’s bmad-sprint-planning to generate it.',
    });
  }
  const read = readSprintStatus(source ?? '', path);
  if (source !== undefined) problems.push(...read.problems);
  // Where BMAD's create-story writes the story files: the project's config says (`storyFolders`).
  const config = bmadProjectConfig(path, texts, present);
  const located = storyFolders(path, read.storyLocation, config);
  if (source !== undefined) problems.push(...located.problems);
  const candidates = (key: string) => filesIn(located.folders, key);
  const stories = read.entries.filter((e) => e.kind === 'story');
  const storyOf = new Map<string, BmadStory>();
  const phases: BmadPhase[] = [];
  // Stories whose keys give one number (`8-9-smart-collapse`, `8-9-subgraph-drill-down`): BMAD
  // tells its stories by their whole keys, and so does the loop, each such story's number its key.
  const keysOf = new Map<string, string[]>();
  for (const e of stories) keysOf.set(e.number!, [...(keysOf.get(e.number!) ?? []), e.key]);
  // The folders holding the files of done stories where BMAD's workflows do not look.
  const doneAside = new Map<string, { keys: string[]; line: number }>();
  let byName: Map<string, string[]> | undefined;
  for (const entry of stories) {
    const file = candidates(entry.key).find((p) => present.has(p));
    const text = file === undefined ? undefined : texts.get(file);
    const story = text === undefined ? undefined : readStory(text, file!);
    const twins = keysOf.get(entry.number!)!;
    const number = twins.length > 1 ? entry.key : entry.number!;
    // A story BMAD has written (past backlog) whose file sits under another folder than the
    // ones BMAD's workflows look in (`stories/`): named, with where it was looked for.
    const aside =
      file === undefined && entry.status !== 'backlog'
        ? (byName ??= filesByName(present)).get(`${entry.key}.md`)
        : undefined;
    if (aside && entry.status === 'done') {
      // A done story's tasks are not needed: such files are told once per folder, not each.
      const folder = aside[0]!.slice(0, aside[0]!.lastIndexOf('/') + 1);
      const group = doneAside.get(folder);
      if (group) group.keys.push(entry.key);
      else doneAside.set(folder, { keys: [entry.key], line: entry.line });
    } else if (aside) {
      const looked = candidates(entry.key);
      problems.push({
        severity: 'warning',
        path,
        line: entry.line,
        message: `The file of story ${entry.key} is at ${aside.join(' and ')}, where BMAD's workflows do not look for it (they look for ${looked.join(' or ')}), so its tasks are not read.`,
        fix: `Move it to ${looked[0]}, or set story_location in ${baseOf(path)} to its folder.`,
      });
    }
    if (twins.length > 1 && twins[1] === entry.key) {
      problems.push({
        severity: 'warning',
        path,
        line: entry.line,
        message: `${twins.map((k) => `"${k}"`).join(' and ')} ${twins.length === 2 ? 'both' : 'all'} read as story ${entry.number}, so each is a phase named by its whole key (\`--phase ${twins[0]}\`).`,
        fix: `To name them by number, give each its own (\`${entry.epic}-M-slug\`) in ${baseOf(path)} and in its file's name.`,
      });
    }
    if (story) {
      storyOf.set(entry.key, story);
      problems.push(...storyDisagreement(entry, story, file!));
    }
    phases.push({
      number,
      name: story?.title || slugName(entry.key),
      line: entry.line,
      tasks: (story?.tasks ?? []).map((t) => ({
        id: `${number}/${t.id}`,
        text: t.text,
        state: entry.setAside && t.state !== 'done' ? ('set-aside' as const) : t.state,
        line: t.line,
        optional: false,
        requirements: t.requirements,
        ...(t.depth > 0 ? { depth: t.depth } : {}),
      })),
      finished: entry.status === 'done' || entry.setAside,
      // Counted apart from the stories done, as BMAD's status view leaves it out of its counts.
      ...(entry.setAside ? { note: 'unknown status' as const } : {}),
      key: entry.key,
      status: entry.status,
      file,
    });
  }
  for (const [folder, { keys, line }] of doneAside) {
    const looked = candidates(keys[0]!);
    const folderOf = looked[0]!.slice(0, looked[0]!.lastIndexOf('/') + 1);
    const [where, to] =
      folderOf === ''
        ? [`beside ${baseOf(path)}`, `beside ${baseOf(path)}`]
        : [`in ${folderOf}`, `to ${folderOf}`];
    problems.push({
      severity: 'warning',
      path,
      line,
      message: `${keys.length === 1 ? `The file of done story ${keys[0]} is` : `The files of ${keys.length} done stories (${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''}) are`} in ${folder}, where BMAD's workflows do not look (they look ${where}); a done story's tasks are not needed, so nothing is missed.`,
      fix: `Move ${keys.length === 1 ? 'it' : 'them'} ${to}, or set story_location in ${baseOf(path)} to ${folder}, for ${keys.length === 1 ? 'its' : 'their'} tasks to be read.`,
    });
  }
  if (source !== undefined && read.problems.every((p) => p.severity !== 'error') && !stories.length)
    problems.push({
      severity: 'error',
      path,
      line: 1,
      message: '`development_status` lists no story.',
      fix: 'Run BMAD’s bmad-sprint-planning to list the epics’ stories (`N-M-slug: backlog`).',
    });
  // The current story, as BMAD's status view picks it, and whether it can start (file, tasks).
  const next = nextStory(read.entries, path, read.storyLocation, (p) => present.has(p), config);
  let current: BmadPhase | undefined;
  let waiting: string | undefined;
  if ('file' in next) {
    current = phases.find((p) => p.key === next.story.key);
    const story = storyOf.get(next.story.key);
    // Its file's own errors (no Tasks / Subtasks, no task) stop the start; another story's are told.
    if (story) problems.push(...story.problems.filter((p) => p.severity === 'error'));
  } else if ('waiting' in next) waiting = next.waiting;
  else if ('missing' in next)
    problems.push({
      severity: 'error',
      path,
      line: next.story.line,
      message: next.missing,
      fix: 'Restore the story file, or run BMAD’s bmad-create-story to write it.',
    });
  for (const [key, story] of storyOf) {
    const own = key === current?.key;
    problems.push(...story.problems.filter((p) => !own || p.severity !== 'error').map(warned));
  }
  const { errors, warnings } = splitProblems(problems);
  const complete = 'complete' in next && errors.length === 0 && phases.length > 0;
  if (errors.length) [current, waiting] = [undefined, undefined];

  const entryOf = (phase: BmadPhase) => {
    const entry = stories.find((e) => e.key === phase.key);
    if (!entry) throw new Error(`Story ${phase.key} is not in ${path}.`);
    return entry;
  };
  const storyFile = (phase: BmadPhase) => {
    const story = storyOf.get(phase.key);
    if (!story || phase.file === undefined)
      throw new Error(`Story ${phase.key} has no story file to mark.`);
    return { story, file: phase.file, text: texts.get(phase.file)! };
  };
  const sprintTo = (phase: BmadPhase, status: string): BmadFileEdit[] => {
    const entry = entryOf(phase);
    // A legacy value that reads as the status already (`contexted`: in-progress) stays as written.
    if (entry.status === status) return [];
    const text = setSprintStatus(source!, entry, status);
    return text === source ? [] : [{ path, text }];
  };
  const boxes = (
    phase: BmadPhase,
    ids: ReadonlySet<string> | undefined,
    state: 'todo' | 'done',
    status?: string,
  ): BmadFileEdit[] => {
    const { story, file, text } = storyFile(phase);
    const tasks = story.tasks.filter(
      (t) => ids === undefined || ids.has(`${phase.number}/${t.id}`),
    );
    let out = setStoryTasks(text, tasks, state);
    if (status !== undefined && story.status && story.status.raw !== status)
      out = setStoryStatus(out, story, status) ?? out;
    return out === text ? [] : [{ path: file, text: out }];
  };
  return {
    path,
    phases,
    current,
    complete,
    waiting,
    problems: errors,
    warnings,
    start: (phase) => sprintTo(phase, 'in-progress'),
    finish: (phase) => [...boxes(phase, undefined, 'done', 'done'), ...sprintTo(phase, 'done')],
    setTasks: (phase, ids, state) => boxes(phase, ids, state),
    withoutFile(file) {
      if (!bmadConfigCandidates(path).includes(file)) return undefined;
      const looks = located.folders.map((f) =>
        f === dirOf(path)
          ? `beside ${baseOf(path)}`
          : `in ${f === '' ? 'the repository root' : `${f}/`}`,
      );
      return `It is BMAD's config, which says where create-story writes story files: the loop looks for them ${looks.join(' and ')} instead.`;
    },
    refuseMark(phase, state) {
      const entry = entryOf(phase);
      if (entry.setAside)
        return `Story ${entry.key} is "${entry.raw}", a status BMAD does not define, so it is set aside and never marked. Write one of BMAD's statuses for it in ${path} first (${BMAD_STATUSES.story.join(', ')}). Nothing was written.`;
      if (state === 'todo' || phase.file !== undefined) return undefined;
      const writes = `${located.writes}/${entry.key}.md`.replace(/^\//, '');
      return `Story ${entry.key} has no story file yet, so it cannot be ${state === 'doing' ? 'started' : 'completed'}: run BMAD's create-story (bmad-create-story) first, which writes ${writes}. Nothing was written.`;
    },
    context(phase) {
      const links: KindContext['links'] = [];
      const sections: KindContext['sections'] = [];
      if (phase.file !== undefined) {
        links.push({ label: `Story ${phase.number}`, path: phase.file });
        const text = texts.get(phase.file);
        if (text !== undefined)
          sections.push({
            title: `Story ${phase.number}${phase.name ? `: ${phase.name}` : ''}`,
            text: text.slice(0, QUOTE_LIMIT),
          });
      }
      links.push({ label: 'Sprint status', path });
      links.push(...planningDocuments(path, present));
      return { links, sections };
    },
  };
}

/** Another story's error is not this start's: it is told as a warning. */
function warned(problem: Problem): Problem {
  return problem.severity === 'error' ? { ...problem, severity: 'warning' } : problem;
}
