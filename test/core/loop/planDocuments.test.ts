import {
  architectItems,
  ConfigSchema,
  type LoopMarker,
  type PullSnapshot,
} from '../../../src/core/index.js';
import {
  defaultPlanGlobs,
  findPlanFiles,
  isPlanDocument,
  mayBePlanDocument,
  planReadsOnTree,
  type GuardedPlanFile,
} from '../../../src/core/plan/kinds/discovery.js';
import { fixture } from '../../helpers/kinds.js';

/**
 * What a plan reads to find or place its files is the plan's too: BMAD's config, which says
 * where story files are, and the story files it (or `story_location`) puts outside
 * `_bmad-output/`. Touching them needs an architect, as touching `_bmad-output/` does.
 */

const config = ConfigSchema.parse({});
const globs = defaultPlanGlobs(config.plansDir);
const IA = '_bmad-output/implementation-artifacts';
const SPRINT = `${IA}/sprint-status.yaml`;
const CONFIG = '_bmad/bmm/config.yaml';
const STORIES = 'docs/stories';
const TREE = new Set([
  SPRINT,
  CONFIG,
  `${STORIES}/1-2-account-management.md`,
  `${STORIES}/1-3-plant-data-model.md`,
  'src/server.ts',
]);
const TEXTS = new Map([
  [SPRINT, fixture(`bmad/v6/${SPRINT}`)],
  [CONFIG, `implementation_artifacts: "{project-root}/${STORIES}"\n`],
]);
const [plan] = findPlanFiles([...TREE], globs) as [GuardedPlanFile];

const snapOf = (paths: string[], plans?: readonly GuardedPlanFile[]) =>
  ({
    repo: { owner: 'o', repo: 'r' },
    repoUrl: 'https://github.com/o/r',
    marker: {
      mode: 'plan',
      issue: 1,
      plan: 'bmad',
      planFile: SPRINT,
      phaseId: '1.2',
    } as LoopMarker,
    files: paths.map((path) => ({ path, additions: 1, deletions: 0 })),
    pr: {
      number: 2,
      url: '',
      body: '',
      head: { sha: 'h', ref: 'coder/bmad/phase-1.2' },
      escalated: false,
    },
    ...(plans ? { plans } : {}),
  }) as PullSnapshot;

describe('a kind’s config and the files it places: from the path alone, worth reading the trees', () => {
  it.each<[string, boolean]>([
    [CONFIG, true],
    ['.bmad/bmm/config.yaml', true],
    ['app/_bmad/bmm/config.yaml', true],
    [`${STORIES}/1-3-plant-data-model.md`, true],
    ['locked/stories/2-6a-split.md', true],
    ['_bmad/core/config.yaml', false],
    ['docs/1-notes.md', false],
    ['src/server.ts', false],
  ])('%s: %s', (path, expected) => {
    expect(mayBePlanDocument(path, globs)).toBe(expected);
  });

  it('a touched config or story-named file asks for the plans; a source file does not', () => {
    expect(architectItems(snapOf([CONFIG]), config)).toEqual({ need: 'plans' });
    expect(architectItems(snapOf([`${STORIES}/1-3-plant-data-model.md`]), config)).toEqual({
      need: 'plans',
    });
    expect(architectItems(snapOf(['src/server.ts']), config)).toEqual({
      locked: [],
      planDocuments: [],
    });
  });
});

describe('BMAD’s config is a plan document of the plans it places', () => {
  it.each<[string, boolean]>([
    [CONFIG, true],
    ['.bmad/bmm/config.yaml', true],
    [`${IA}/_bmad/bmm/config.yaml`, true],
    ['other/_bmad/bmm/config.yaml', false],
  ])('%s: %s, from the paths alone', (path, expected) => {
    expect(isPlanDocument(path, plan)).toBe(expected);
  });

  it('a writer’s PR that edits it is a plan change', () => {
    expect(architectItems(snapOf([CONFIG, 'src/server.ts'], [plan]), config)).toEqual({
      locked: [],
      planDocuments: [CONFIG],
    });
  });
});

describe('story files outside _bmad-output/, where the config puts them', () => {
  it('reads the sprint status and the config first, then names every story file it reads', () => {
    expect(planReadsOnTree(plan, TREE, new Map())).toEqual({
      need: 'texts',
      paths: [SPRINT, CONFIG],
    });
    const read = planReadsOnTree(plan, TREE, TEXTS);
    if (!('reads' in read)) throw new Error('texts still needed');
    expect(read.reads).toEqual(
      expect.arrayContaining([
        `${STORIES}/1-2-account-management.md`,
        `${STORIES}/1-3-plant-data-model.md`,
        `${STORIES}/2-1-personality-system.md`,
        CONFIG,
      ]),
    );
  });

  it('a PR that ticks a later story’s boxes there, or moves it elsewhere, is a plan change', () => {
    const read = planReadsOnTree(plan, TREE, TEXTS);
    if (!('reads' in read)) throw new Error('texts still needed');
    const guarded = { ...plan, reads: read.reads };
    const touched = [
      `${STORIES}/1-3-plant-data-model.md`,
      'notes/1-3-plant-data-model.md',
      'notes/7-1-not-a-story-here.md',
      'src/server.ts',
    ];
    expect(architectItems(snapOf(touched, [guarded]), config)).toEqual({
      locked: [],
      planDocuments: [`${STORIES}/1-3-plant-data-model.md`, 'notes/1-3-plant-data-model.md'],
    });
  });
});
