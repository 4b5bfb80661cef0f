import {
  decodeRecord,
  encodeRecord,
  modeOfBranch,
  RECORD_LIMIT,
  vettedFits,
  withRecord,
  withoutRecord,
  type LoopMarker,
} from '../../../src/core/index.js';

/** The loop's record: one check run per head, read back only on that head. */

const HEAD = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);

const plan: LoopMarker = { mode: 'plan', plan: 'docs/plans/A.md', phase: 2, issue: 7, comment: 9 };
const full: LoopMarker = {
  mode: 'quick',
  issue: 3,
  attempts: [{ sha: OTHER, checks: [{ name: 'ci <x> -->', conclusion: 'failure', url: 'u' }] }],
  reviewRounds: [HEAD],
  grew: true,
  escalation: { reason: 'retries --> done', sha: HEAD },
  pushers: ['mallory'],
  vetted: { title: 't', body: '<!-- b -->' },
};

describe('record: round trip', () => {
  it.each<[string, LoopMarker]>([
    ['a plan-mode marker', plan],
    ['a quick-mode marker with every field, text that could end a comment', full],
    [
      'a plan of another kind: its tasks file and its phase id',
      { ...plan, plan: 'master', planFile: '.taskmaster/tasks/tasks.json#master', phaseId: '3.1' },
    ],
    [
      'the files the loop’s commits wrote, as their blobs',
      { ...plan, loopFiles: [{ path: 'docs/plans/A/Reports/01_Master_Log.md', blob: OTHER }] },
    ],
  ])('%s reads back the same on its head', (_name, marker) => {
    expect(decodeRecord(withRecord('Summary', marker, HEAD), HEAD)).toEqual(marker);
  });

  it('drops fields the record does not keep and empty lists', () => {
    const marker = { mode: 'plan', issue: 1, attempts: [], extra: 'x' } as LoopMarker;
    expect(decodeRecord(encodeRecord(marker, HEAD), HEAD)).toEqual({ mode: 'plan', issue: 1 });
  });
});

describe('record: what is no record', () => {
  const good = encodeRecord(plan, HEAD);
  const json = good.slice('<!-- coder-loop:record '.length, -' -->'.length);
  it.each<[string, string | null | undefined, string]>([
    ['no text', undefined, HEAD],
    ['null text', null, HEAD],
    ['text without a record', 'Summary only', HEAD],
    ['a record about another head', good, OTHER],
    ['an unclosed record', `<!-- coder-loop:record ${json}`, HEAD],
    ['malformed JSON', '<!-- coder-loop:record {"v":1, -->', HEAD],
    ['another version', good.replace('"v":1', '"v":2'), HEAD],
    ['a head that is no sha', good.replace(HEAD, 'z'.repeat(40)), 'z'.repeat(40)],
    ['an issue that is not positive', good.replace('"issue":7', '"issue":0'), HEAD],
  ])('%s → undefined', (_name, text, head) => {
    expect(decodeRecord(text, head)).toBeUndefined();
  });

  it('refuses to encode a head that is no sha', () => {
    expect(() => encodeRecord(plan, 'main')).toThrow();
  });
});

describe('record: the text people read', () => {
  it.each<[string, string | null | undefined, string]>([
    ['no text', undefined, ''],
    ['text without a record', 'Summary\n', 'Summary'],
    ['text with a record', `Summary\n\n${encodeRecord(plan, HEAD)}`, 'Summary'],
  ])('%s', (_name, text, expected) => {
    expect(withoutRecord(text)).toBe(expected);
  });

  it('replaces the record rather than adding a second one', () => {
    const once = withRecord('Summary', plan, HEAD);
    const twice = withRecord(once, { ...plan, phase: 3 }, HEAD);
    expect(twice).toBe(`Summary\n\n${encodeRecord({ ...plan, phase: 3 }, HEAD)}`);
    expect(decodeRecord(twice, HEAD)).toEqual({ ...plan, phase: 3 });
  });
});

describe('modeOfBranch', () => {
  it.each([
    ['coder/quick/12-fix', 'quick'],
    ['coder/plan-a/phase-1', 'plan'],
    ['coder/quickly', 'plan'],
  ])('%s → %s', (branch, mode) => {
    expect(modeOfBranch(branch)).toBe(mode);
  });
});

describe('record: bounded whatever the input', () => {
  it('the loop’s own files: the newest twenty, blobs that are shas only', () => {
    const loopFiles = Array.from({ length: 30 }, (_, i) => ({ path: `f${i}`, blob: HEAD }));
    expect(decodeRecord(encodeRecord({ ...plan, loopFiles }, HEAD), HEAD)?.loopFiles).toEqual(
      loopFiles.slice(-20),
    );
    expect(() =>
      encodeRecord({ ...plan, loopFiles: [{ path: 'f', blob: 'not a sha' }] }, HEAD),
    ).toThrow();
  });

  it('a hundred failed attempts of a hundred long-named checks: within the limit, every attempt kept', () => {
    const sha = (i: number) => i.toString(16).padStart(40, '0');
    const marker: LoopMarker = {
      mode: 'plan',
      issue: 1,
      pr: 2,
      branch: 'coder/a/phase-1',
      attempts: Array.from({ length: 100 }, (_, i) => ({
        sha: sha(i),
        checks: Array.from({ length: 100 }, (_c, j) => ({
          name: `<${'-'.repeat(290)}> ${j}`,
          conclusion: 'failure',
          url: `https://ci.example.com/${'-'.repeat(1_900)}`,
        })),
        reason: '-'.repeat(4_000),
      })),
      escalation: { reason: '<'.repeat(4_000), sha: HEAD },
    };
    const text = encodeRecord(marker, HEAD);
    expect(text.length).toBeLessThanOrEqual(RECORD_LIMIT);
    const back = decodeRecord(text, HEAD)!;
    expect(back.attempts!.map((a) => a.sha)).toEqual(marker.attempts!.map((a) => a.sha));
    expect(back).toMatchObject({ pr: 2, branch: 'coder/a/phase-1', escalation: { sha: HEAD } });
  });

  it('an issue’s text fits the record, or is refused whole (never cut)', () => {
    expect(vettedFits({ title: 't', body: '-'.repeat(3_000) })).toBe(true);
    expect(vettedFits({ title: 't', body: '-'.repeat(12_000) })).toBe(false);
    expect(vettedFits({ title: 't', body: 'x'.repeat(19_000) })).toBe(true);
    expect(vettedFits({ title: 't', body: 'x'.repeat(30_001) })).toBe(false);
  });
});
