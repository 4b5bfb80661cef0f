import { readFileSync } from 'node:fs';
import type { NamedPlan } from '../../../../src/core/plan/kinds/index.js';
import {
  kindPlanReads,
  kindSidecar,
  openKindPlan,
  planFromRef,
  planRef,
} from '../../../../src/core/plan/kinds/plan.js';

/** One kind-neutral view of spec-kit, Kiro and Task Master plans (SPEC §2b). */

const fixture = (path: string) =>
  readFileSync(new URL(`../../../fixtures/${path}`, import.meta.url), 'utf8');

const SPECKIT: NamedPlan = {
  kind: 'speckit',
  path: 'specs/001-photo-albums/tasks.md',
  folder: 'specs/001-photo-albums',
  sidecar: 'specs/001-photo-albums/coder-loop',
  name: '001-photo-albums',
};
const KIRO: NamedPlan = {
  kind: 'kiro',
  path: '.kiro/specs/user-auth/tasks.md',
  folder: '.kiro/specs/user-auth',
  sidecar: '.kiro/specs/user-auth/coder-loop',
  name: 'user-auth',
};
const TM: NamedPlan = {
  kind: 'taskmaster',
  path: '.taskmaster/tasks/tasks.json',
  folder: '.taskmaster/tasks',
  sidecar: '.taskmaster/tasks/coder-loop/master',
  name: 'master',
  tag: 'master',
};

const open = (plan: NamedPlan, files: Record<string, string>) =>
  openKindPlan(plan, Object.keys(files), new Map(Object.entries(files)));

/** Where two texts differ: each differing run of characters, as [offset, before, after]. */
function diff(a: string, b: string): [number, string, string][] {
  expect(b.length - a.length).toBeLessThan(40);
  const out: [number, string, string][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    // Marks are one byte (markdown) or one JSON string value: read to the next common quote.
    const end = (s: string, k: number) => {
      let e = k;
      while (e < s.length && s[e] !== '"' && s[e] !== ']') e++;
      return e;
    };
    const ea = end(a, i);
    const eb = end(b, j);
    out.push([i, a.slice(i, ea), b.slice(j, eb)]);
    i = ea;
    j = eb;
  }
  return out;
}

describe('openKindPlan: phases, the current one, context', () => {
  const speckit = {
    [SPECKIT.path]: fixture('speckit/001-photo-albums/tasks.md'),
    'specs/001-photo-albums/spec.md': '# Spec\n',
    'specs/001-photo-albums/plan.md': '# Plan\n',
  };
  const kiro = {
    [KIRO.path]: fixture('kiro/user-auth/tasks.md'),
    '.kiro/specs/user-auth/bugfix.md': '# Bugfix\n',
    '.kiro/specs/user-auth/design.md': '# Design\n',
  };
  const tm = { [TM.path]: fixture('taskmaster/tagged.json') };

  it.each<[string, NamedPlan, Record<string, string>, string[], string | undefined]>([
    ['spec-kit', SPECKIT, speckit, ['1', '2', '3', '3.1'], '2'],
    ['Kiro (bugfix.md stands for requirements.md)', KIRO, kiro, ['1', '2', '3'], '2'],
    ['Task Master', TM, tm, ['1', '2', '3'], '2'],
  ])('%s', (_name, plan, files, numbers, current) => {
    const kp = open(plan, files);
    expect(kp.problems).toEqual([]);
    expect(kp.phases.map((p) => p.number)).toEqual(numbers);
    expect(kp.current?.number).toBe(current);
  });

  it.each<[string, NamedPlan, Record<string, string>, string[]]>([
    [
      'spec-kit without spec.md and plan.md',
      SPECKIT,
      { [SPECKIT.path]: speckit[SPECKIT.path]! },
      [
        "specs/001-photo-albums/tasks.md: spec-kit's spec is missing: specs/001-photo-albums/spec.md.",
        "specs/001-photo-albums/tasks.md: spec-kit's plan is missing: specs/001-photo-albums/plan.md.",
      ],
    ],
    [
      'Kiro without requirements and design',
      KIRO,
      { [KIRO.path]: kiro[KIRO.path]! },
      [
        ".kiro/specs/user-auth/tasks.md: Kiro's requirements is missing: .kiro/specs/user-auth/requirements.md or .kiro/specs/user-auth/bugfix.md.",
        ".kiro/specs/user-auth/tasks.md: Kiro's design is missing: .kiro/specs/user-auth/design.md.",
      ],
    ],
    [
      'Task Master that is not JSON',
      TM,
      { [TM.path]: '{\n  "master": [\n}' },
      ['.taskmaster/tasks/tasks.json:3: not valid JSON: expected a value at column 1.'],
    ],
    [
      'Task Master naming a tag the file lacks',
      { ...TM, tag: 'gone', name: 'gone' },
      tm,
      ['.taskmaster/tasks/tasks.json:1: the tag "gone" is not in the file.'],
    ],
    [
      'spec-kit without a phase',
      SPECKIT,
      { ...speckit, [SPECKIT.path]: '# Tasks\n' },
      ['specs/001-photo-albums/tasks.md:1: no phase with a task was found.'],
    ],
    [
      'the tasks file missing',
      SPECKIT,
      {},
      ['specs/001-photo-albums/tasks.md: the tasks file is missing.'],
    ],
  ])('context problems with file:line: %s', (_name, plan, files, problems) => {
    expect(
      open(plan, files).problems.map((p) => `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`),
    ).toEqual(problems);
  });
});

describe('marks: one byte (or one JSON value) per task, every other byte kept', () => {
  const kiroSource = fixture('kiro/user-auth/tasks.md');
  const kiro = {
    [KIRO.path]: kiroSource,
    '.kiro/specs/user-auth/requirements.md': '# R\n',
    '.kiro/specs/user-auth/design.md': '# D\n',
  };
  const speckitSource = fixture('speckit/001-photo-albums/tasks.md');
  const speckit = {
    [SPECKIT.path]: speckitSource,
    'specs/001-photo-albums/spec.md': '',
    'specs/001-photo-albums/plan.md': '',
  };
  const legacy = fixture('taskmaster/legacy-crlf-no-final-newline.json');
  const legacyPlan: NamedPlan = { ...TM, path: 'tasks/tasks.json', folder: 'tasks' };

  it.each<[string, NamedPlan, Record<string, string>, 'start' | 'done', [string, string][]]>([
    ['spec-kit start: none', SPECKIT, speckit, 'start', []],
    [
      'spec-kit done: [X]',
      SPECKIT,
      speckit,
      'done',
      [
        [' ', 'X'],
        [' ', 'X'],
      ],
    ],
    // The top-level task 2 and the open 2.2 get [-]; 2.1 is [-] already; 2.3 is optional.
    [
      'Kiro start: [-]',
      KIRO,
      kiro,
      'start',
      [
        [' ', '-'],
        [' ', '-'],
      ],
    ],
    [
      'Kiro done: [x]',
      KIRO,
      kiro,
      'done',
      [
        [' ', 'x'],
        ['-', 'x'],
        [' ', 'x'],
      ],
    ],
    [
      'Task Master start: "in-progress", parent too',
      TM,
      { [TM.path]: fixture('taskmaster/tagged.json') },
      'start',
      [
        ['pending', 'in-progress'],
        ['pending', 'in-progress'],
        ['pending', 'in-progress'],
      ],
    ],
    [
      'Task Master, CRLF and no final newline: done',
      legacyPlan,
      { [legacyPlan.path]: legacy },
      'done',
      [['pending', 'done']],
    ],
  ])('%s', (_name, plan, files, which, changes) => {
    const kp = open(plan, files);
    const phase = kp.current!;
    const source = files[plan.path]!;
    const out = which === 'start' ? kp.markStart(phase) : kp.markDone(phase);
    expect(diff(source, out).map(([, a, b]) => [a, b])).toEqual(changes);
    expect(out.split('\r\n').length).toBe(source.split('\r\n').length);
    expect(out.endsWith('\n')).toBe(source.endsWith('\n'));
  });
});

describe('context for the PR and the agent', () => {
  it('Kiro: the requirements the tasks cite come first, then the design', () => {
    const kp = open(KIRO, {
      [KIRO.path]: fixture('kiro/user-auth/tasks.md'),
      '.kiro/specs/user-auth/requirements.md':
        '# R\n\n### Requirement 1\n\nOne\n\n### Requirement 2\n\nTwo\n\n### Requirement 4\n\nFour\n',
      '.kiro/specs/user-auth/design.md': '# Design\n',
    });
    const context = kp.context(kp.current!);
    expect(context.links.map((l) => l.path)).toEqual([
      '.kiro/specs/user-auth/requirements.md',
      '.kiro/specs/user-auth/design.md',
    ]);
    expect(context.sections).toEqual([
      {
        title: 'Requirements the tasks cite (Requirement 2, Requirement 3, Requirement 1)',
        text: '### Requirement 2\n\nTwo\n\n### Requirement 1\n\nOne',
      },
      { title: 'Design', text: '# Design\n' },
    ]);
  });

  it.each([
    [
      'Russian',
      '- [ ] 1. Модель\n  - [ ] 1.1 Создать модель\n    - _Требования: 2.1, 1.3_\n',
      '# Требования\n\n### Требование 1\n\nОдин\n\n### Требование 2\n\nДва\n\n### Требование 3\n\nТри\n',
      ['### Требование 2\n\nДва', '### Требование 1\n\nОдин'],
    ],
    [
      'Japanese',
      '- [ ] 1. 実装\n  - [ ] 1.1 接続\n    - _要件: 2.3_\n',
      '# 要件定義書\n\n## 要件\n\n### 要件1: 認証\n\n一\n\n### 要件2: 接続\n\n二\n',
      ['### 要件2: 接続\n\n二'],
    ],
    [
      'Chinese',
      '- [ ] 1. 实现\n  - [ ] 1.1 事件\n    - _需求：1.2_\n',
      '# 需求文档\n\n### 需求 1：重复事件\n\n一\n\n### 需求 2：模板\n\n二\n',
      ['### 需求 1：重复事件\n\n一'],
    ],
    [
      'French',
      '- [ ] 1. Base\n  - [ ] 1.1 Stock\n    - _Exigences: 2.1_\n',
      '# Exigences\n\n### Exigence 1 : Stock\n\nUn\n\n### Exigence 2 : Commande\n\nDeux\n',
      ['### Exigence 2 : Commande\n\nDeux'],
    ],
  ])(
    'Kiro in %s: the requirements its tasks cite, by their headings in that language',
    (_language, tasks, requirements, quoted) => {
      const kp = open(KIRO, {
        [KIRO.path]: tasks,
        '.kiro/specs/user-auth/requirements.md': requirements,
      });
      const [section] = kp.context(kp.current!).sections;
      expect(section!.text).toBe(quoted.join('\n\n'));
    },
  );

  it('spec-kit: links to the spec, the plan, the data model and each contract', () => {
    const files = {
      [SPECKIT.path]: fixture('speckit/001-photo-albums/tasks.md'),
      'specs/001-photo-albums/spec.md': '',
      'specs/001-photo-albums/plan.md': '',
      'specs/001-photo-albums/data-model.md': '',
      'specs/001-photo-albums/contracts/b.yaml': '',
      'specs/001-photo-albums/contracts/a.yaml': '',
    };
    const kp = open(SPECKIT, files);
    expect(kp.context(kp.current!).links.map((l) => l.label)).toEqual([
      'Spec',
      'Plan',
      'Data model',
      'Contract a.yaml',
      'Contract b.yaml',
    ]);
  });

  it("Task Master: the details and test strategy of the phase's subtasks", () => {
    const kp = open(TM, { [TM.path]: fixture('taskmaster/tagged.json') });
    expect(kp.context(kp.current!).sections).toEqual([
      {
        title: 'Details and test strategy',
        text: '**2.1 Configure OAuth**\n- Details: Add the client id to the config.',
      },
    ]);
  });
});

describe('sidecar and references', () => {
  it('the loop writes only under <plan folder>/coder-loop/', () => {
    const sidecar = kindSidecar(KIRO);
    expect([
      sidecar.masterLog,
      sidecar.checkpoint,
      sidecar.report({ number: '2', name: 'Data models / validation', line: 1, tasks: [] }),
      sidecar.report({ number: '3.1', name: '', line: 1, tasks: [] }),
    ]).toEqual([
      '.kiro/specs/user-auth/coder-loop/Master_Log.md',
      '.kiro/specs/user-auth/coder-loop/Checkpoint.md',
      '.kiro/specs/user-auth/coder-loop/Reports/02_Data_models_validation.md',
      '.kiro/specs/user-auth/coder-loop/Reports/3.1_Phase_3.1.md',
    ]);
  });

  it('reads only what the kind needs', () => {
    expect(
      kindPlanReads(KIRO, [
        KIRO.path,
        '.kiro/specs/user-auth/design.md',
        '.kiro/specs/user-auth/coder-loop/Master_Log.md',
        'src/a.ts',
      ]),
    ).toEqual([
      KIRO.path,
      '.kiro/specs/user-auth/coder-loop/Master_Log.md',
      '.kiro/specs/user-auth/design.md',
    ]);
  });

  it.each<NamedPlan>([SPECKIT, KIRO, TM])('planFromRef(planRef(plan)) is the plan: %p', (plan) => {
    expect(planFromRef(planRef(plan))).toEqual(plan);
  });

  it.each([
    'src/a.ts',
    'tasks/tasks.json',
    'specs/a/tasks.md#tag',
    'docs/plans/A/01_Master Plan/01_Checklist.md',
  ])('no plan of another kind: %s', (ref) => expect(planFromRef(ref)).toBeUndefined());
});
