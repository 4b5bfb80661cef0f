import { parseChecklist } from '../src/core/index.js';
import { scannedAlone } from '../src/core/plan/checklist.js';
import { readKiro, scanKiro } from '../src/core/plan/kinds/kiro/index.js';
import { readSpeckit, scanSpeckit } from '../src/core/plan/kinds/speckit/index.js';
import { readTaskmaster } from '../src/core/plan/kinds/taskmaster/index.js';
import { makeTasksJson } from './plans.js';
import { median, time, ms } from './stats.js';

/**
 * Files shaped like real plans, generated (never committed): spec-kit's template layout (front
 * matter, its Format heading with code, HTML comments, block quotes, fenced code, nested and
 * ordered lists), Kiro's (top-level tasks with sub-tasks, detail bullets, `_Requirements:_` and
 * `**Validates: Requirements …**` lines, optional `[ ]*` tasks), and the coder checklist's, each
 * in English, Chinese and Russian prose, with LF or CRLF line ends, with and without a byte order
 * mark. The figures: read time per KiB, and the share of files the line scanner reads alone.
 */
export interface Variant {
  script: 'latin' | 'cjk' | 'cyrillic';
  eol: '\n' | '\r\n';
  bom: boolean;
}

export const VARIANTS: Variant[] = (['latin', 'cjk', 'cyrillic'] as const).flatMap((script) =>
  (['\n', '\r\n'] as const).flatMap((eol) => [false, true].map((bom) => ({ script, eol, bom }))),
);

const PROSE = {
  latin: ['Create the album model and its validation', 'Users can group photos by date'],
  cjk: ['创建相册模型并添加校验', '用户可以按日期整理照片'],
  cyrillic: ['Создать модель альбома и проверку', 'Пользователи группируют фото по дате'],
};

function framed(lines: string[], v: Variant): string {
  return `${v.bom ? '\ufeff' : ''}${lines.join(v.eol)}${v.eol}`;
}

/** A spec-kit tasks.md of about `kib` KiB, as spec-kit's template lays one out. */
export function realSpeckit(kib: number, v: Variant): string {
  const [task, goal] = PROSE[v.script];
  const lines = [
    '---',
    '',
    'description: "Task list for feature implementation"',
    '---',
    '',
    '# Tasks: Photo Albums',
    '',
    '**Input**: Design documents from `/specs/001-photo-albums/`',
    '**Prerequisites**: plan.md (required), spec.md',
    '',
    '## Format: `[ID] [P?] [Story] Description`',
    '',
    '- **[P]**: Can run in parallel (different files, no dependencies)',
    '- **[Story]**: Which user story this task belongs to (e.g., US1, US2, US3)',
    '',
    '<!--',
    '  The tasks below were generated from spec.md and plan.md.',
    '-->',
    '',
  ];
  let id = 0;
  let bytes = 0;
  for (let p = 1; bytes < kib * 1024; p++) {
    lines.push(
      '---',
      '',
      `## Phase ${p}: User Story ${p} - ${goal} (Priority: P${(p % 3) + 1})`,
      '',
    );
    lines.push(`**Goal**: ${goal}`, '', `### Tests for User Story ${p} ⚠️`, '');
    lines.push('> **NOTE: Write these tests FIRST, ensure they FAIL before implementation**', '');
    for (let t = 0; t < 12; t++) {
      id++;
      const tid = `T${String(id).padStart(3, '0')}`;
      lines.push(
        `- [${t % 4 === 0 ? 'X' : ' '}] ${tid}${t % 2 ? ' [P]' : ''} [US${p}] ${task} in src/models/album_${id}.ts (~${t} ms)`,
      );
      if (t % 5 === 4) lines.push(`  - ${goal}: keep \`id\` stable`);
    }
    lines.push('', `**Checkpoint**: ${goal}`, '');
    if (p % 4 === 0) {
      lines.push(
        '```bash',
        `# Launch the tests of story ${p} together:`,
        `Task: "${task}"`,
        '```',
        '',
      );
    }
    bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  }
  lines.push(
    '## Dependencies & Execution Order',
    '',
    '- **Setup (Phase 1)**: No dependencies - can start immediately',
    '  - User stories can then proceed in parallel (P1 → P2 → P3)',
    '',
    '## Implementation Strategy',
    '',
    '1. Complete Phase 1: Setup',
    '2. Complete Phase 2: Foundational',
    '3. **STOP and VALIDATE**: Test User Story 1 independently',
  );
  return framed(lines, v);
}

/** A Kiro tasks.md of about `kib` KiB, as Kiro writes one. */
export function realKiro(kib: number, v: Variant): string {
  const [task, detail] = PROSE[v.script];
  const lines = ['# Implementation Plan', '', `${detail}.`, ''];
  let bytes = 0;
  for (let t = 1; bytes < kib * 1024; t++) {
    lines.push(`- [${t % 3 === 0 ? 'x' : ' '}] ${t}. ${task}`);
    for (let s = 1; s <= 5; s++) {
      lines.push(
        `  - [${s === 5 ? ' ]*' : ' ]'} ${t}.${s} ${task} (${s})`,
        `    - Create \`src/part${t}/step${s}.ts\` with the ${s === 1 ? 'interfaces' : 'logic'}`,
        `    - ${detail}`,
        s === 5
          ? `    - **Validates: Requirements ${t}.1, ${t}.2**`
          : `    - _Requirements: ${t}.${s}, ${t + 1}.1_`,
        '',
      );
    }
    bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  }
  return framed(lines, v);
}

/** A coder checklist of about `kib` KiB: phases of tasks, a note and a quote in each. */
export function realChecklist(kib: number, v: Variant): string {
  const [task, note] = PROSE[v.script];
  const lines = ['# Photo Albums', '', `${note}.`, ''];
  let bytes = 0;
  for (let p = 1; bytes < kib * 1024; p++) {
    lines.push(`## Phase ${p}: ${note}`, '', `> ${note}`, '');
    for (let t = 1; t <= 15; t++) {
      lines.push(`- [${t % 4 === 0 ? 'x' : ' '}] ${p}.${t} ${task} in \`src/p${p}/t${t}.ts\``);
      if (t % 5 === 0) lines.push(`  - [ ] ${p}.${t}.1 ${note}`);
    }
    lines.push('');
    bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  }
  return framed(lines, v);
}

export function benchRealPlans(kib = 100): string {
  const kinds: [
    string,
    (k: number, v: Variant) => string,
    (s: string) => unknown,
    ((s: string) => unknown) | undefined,
  ][] = [
    ['spec-kit tasks.md', realSpeckit, (s) => readSpeckit(s, 'tasks.md'), scanSpeckit],
    ['Kiro tasks.md', realKiro, (s) => readKiro(s, 'tasks.md'), scanKiro],
    ['coder checklist', realChecklist, (s) => parseChecklist(s, 'c.md'), scannedAlone],
  ];
  const out = [
    `Real-shaped plans of about ${kib} KiB, 12 variants each (English, Chinese, Russian prose; LF, CRLF; with and without a BOM), median of 11 reads per file:`,
  ];
  for (const [name, make, read, scan] of kinds) {
    const perKib: number[] = [];
    const whole: number[] = [];
    let fast = 0;
    for (const v of VARIANTS) {
      const source = make(kib, v);
      const size = Buffer.byteLength(source) / 1024;
      for (let i = 0; i < 3; i++) read(source);
      const t = time(11, () => read(source));
      whole.push(t);
      perKib.push(t / size);
      if (scan?.(source)) fast++;
    }
    const sorted = [...whole].sort((a, b) => a - b);
    out.push(
      `  ${name.padEnd(18)} ${(median(perKib) * 1000).toFixed(0).padStart(5)} µs/KiB, ${ms(median(whole))} a file (${ms(sorted[0]!)}–${ms(sorted[sorted.length - 1]!)})` +
        (scan ? `, fast path ${fast}/${VARIANTS.length}` : ''),
    );
  }
  // Task Master: a tasks.json of about the same size.
  const json = makeTasksJson(400);
  const size = Buffer.byteLength(json) / 1024;
  for (let i = 0; i < 3; i++) readTaskmaster(json, 'tasks.json');
  const tm = time(11, () => readTaskmaster(json, 'tasks.json'));
  out.push(
    `  Task Master JSON    ${((tm / size) * 1000).toFixed(0).padStart(5)} µs/KiB, ${ms(tm)} for ${size.toFixed(0)} KiB`,
  );
  // What the fallback costs: one file read by remark alone.
  const one = realSpeckit(kib, VARIANTS[0]!);
  const remark = time(3, () => readSpeckit(one, 'tasks.md', { fast: false }));
  out.push(
    `  spec-kit, remark alone (the fallback): ${ms(remark)} a file, ${((remark / (Buffer.byteLength(one) / 1024)) * 1000).toFixed(0)} µs/KiB`,
  );
  return out.join('\n');
}
