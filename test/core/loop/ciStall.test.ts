import {
  ciGateOf,
  ciStalled,
  decodeRecord,
  encodeRecord,
  type CiStallFacts,
} from '../../../src/core/index.js';
import { ci, config, HEAD, OLD, snap } from './pullFixtures.js';

const SINCE = '2026-03-10T12:00:00Z';
const at = (minutes: number) => new Date(Date.parse(SINCE) + minutes * 60_000);
const waiting = { node: 'Verification' as const, conclusion: null };
const none: CiStallFacts = { waitingSince: SINCE, checks: [] };

describe('Verification with no CI at all', () => {
  test('after ciStallMinutes the issue is told once, and the record keeps the head', () => {
    expect(ciStalled(snap({ own: waiting }), config(), none, at(29))).toBeUndefined();
    const d = ciStalled(snap({ own: waiting }), config(), none, at(30))!;
    expect(d.outcome).toMatchObject({ state: 'waiting-for-ci', node: 'Verification' });
    expect(d.effects.map((e) => e.kind)).toEqual(['marker', 'reply']);
    const marker = d.effects[0]!.kind === 'marker' ? d.effects[0]!.marker : undefined;
    expect(marker?.ciStall).toBe(HEAD);
    expect(decodeRecord(encodeRecord(marker!, HEAD), HEAD)?.ciStall).toBe(HEAD);
    // Told for this head: nothing more on it; a new head (an older note) is told again.
    expect(ciStalled(snap({ own: waiting, marker: marker! }), config(), none, at(90))).toBe(
      undefined,
    );
    const older = { ...marker!, ciStall: OLD };
    expect(ciStalled(snap({ own: waiting, marker: older }), config(), none, at(90))).toBeDefined();
  });

  test('nothing when CI reported, the wait has no start, it is off, or the loop waits for no CI', () => {
    const late = at(600);
    const s = snap({ own: waiting });
    expect(ciStalled(s, config(), { ...none, checks: [ci(null)] }, late)).toBeUndefined();
    expect(ciStalled(s, config(), { ...none, waitingSince: null }, late)).toBeUndefined();
    expect(ciStalled(s, config({ ciStallMinutes: 0 }), none, late)).toBeUndefined();
    expect(ciStalled(snap(), config(), none, late)).toBeUndefined();
    expect(
      ciStalled(snap({ own: { node: 'Debug', conclusion: null } }), config(), none, late),
    ).toBeUndefined();
    expect(ciStalled(snap({ own: waiting, escalated: true }), config(), none, late)).toBe(
      undefined,
    );
  });

  test('the reply names the workflows the loop waits for and the line to change', () => {
    const gate = ciGateOf(
      new Map([
        [
          '.github/workflows/loop.yml',
          'name: loop\non:\n  issue_comment: {}\n  workflow_run:\n    workflows: [CI]\n    types: [completed]\njobs:\n  loop:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: me/coder-loop@main\n',
        ],
        [
          '.github/workflows/tests.yml',
          'name: Tests\non: pull_request\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
        ],
      ]),
    );
    expect(gate).toMatchObject({ path: '.github/workflows/loop.yml', waits: ['CI'] });
    const d = ciStalled(snap({ own: waiting }), config(), { ...none, gate }, at(45))!;
    const reply = d.effects.find((e) => e.kind === 'reply');
    expect(reply?.kind === 'reply' && reply.body).toMatch(
      /waits for the workflow "CI"[\s\S]*"Tests" \(\.github\/workflows\/tests\.yml\)[\s\S]*Change line 5 to `workflows: \[Tests\]`/,
    );
  });
});
