import { validateChanges, type AgentChange } from '../../../src/core/index.js';

const file = (path: string, text = 'x\n', mode = '100644'): AgentChange => ({
  path,
  mode,
  content: Buffer.from(text).toString('base64'),
});

describe('validating the agent change set', () => {
  it('accepts files, executables, links inside the repository and deletions', () => {
    const result = validateChanges(
      [
        file('src/a.ts', 'export const a = 1;\n'),
        file('bin/run', '#!/bin/sh\n', '100755'),
        file('src/link', '../README.md', '120000'),
        { path: 'old.txt', deleted: true },
      ],
      'docs/plans',
    );
    expect(result).toEqual({
      ok: true,
      changes: [
        { path: 'src/a.ts', mode: '100644', bytes: Buffer.from('export const a = 1;\n') },
        { path: 'bin/run', mode: '100755', bytes: Buffer.from('#!/bin/sh\n') },
        { path: 'src/link', mode: '120000', bytes: Buffer.from('../README.md') },
        { path: 'old.txt', deleted: true },
      ],
    });
  });

  it('keeps binary content byte for byte', () => {
    const bytes = Buffer.from([0, 255, 1, 128, 10]);
    const result = validateChanges(
      [{ path: 'img.bin', mode: '100644', content: bytes.toString('base64') }],
      'docs/plans',
    );
    expect(result.ok && result.changes[0]).toEqual({ path: 'img.bin', mode: '100644', bytes });
  });

  it('refuses paths that are not normal repository paths', () => {
    const result = validateChanges(
      [
        file('/etc/passwd'),
        file('a/../../b'),
        file('./a'),
        file('a//b'),
        file('a\\b'),
        file('.git/config'),
        file('sub/.GIT/hooks/x'),
        file('a\nb'),
      ],
      'docs/plans',
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        '"/etc/passwd" is absolute',
        '"a/../../b" holds ".."',
        '"./a" holds "."',
        '"a//b" has an empty segment (// or a trailing /)',
        '"a\\\\b" holds a backslash',
        '".git/config" is inside .git',
        '"sub/.GIT/hooks/x" is inside .git',
        '"a\\nb" holds a control character',
      ],
    });
  });

  it('refuses .github/ and the plan documents, deletions included; one refusal refuses all', () => {
    const result = validateChanges(
      [
        file('src/ok.ts'),
        file('.github/workflows/ci.yml'),
        file('.GitHub/coder.yml'),
        { path: 'docs/plans/Example/01_Master Plan/01_Checklist.md', deleted: true },
        file('docs/plans/Example/Task Plans/Phase 1.md'),
      ],
      'docs/plans/',
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual([
      '".github/workflows/ci.yml" — .github/ is not the agent\'s (workflows and the loop\'s config)',
      '".GitHub/coder.yml" — .github/ is not the agent\'s (workflows and the loop\'s config)',
      '"docs/plans/Example/01_Master Plan/01_Checklist.md" — the plan documents under docs/plans/ are the loop\'s and the architect\'s',
      '"docs/plans/Example/Task Plans/Phase 1.md" — the plan documents under docs/plans/ are the loop\'s and the architect\'s',
    ]);
    expect(validateChanges([file('docs/plansX/a.md')], 'docs/plans').ok).toBe(true);
  });

  it('refuses modes other than file, executable and link; links that leave the repository', () => {
    const result = validateChanges(
      [
        file('sub', '', '160000'),
        file('tree', '', '040000'),
        file('a/link', '../../outside', '120000'),
        file('b/link', '/etc/passwd', '120000'),
      ],
      'docs/plans',
    );
    expect(!result.ok && result.problems).toEqual([
      '"sub" has mode 160000; only 100644, 100755 and 120000 are applied',
      '"tree" has mode 040000; only 100644, 100755 and 120000 are applied',
      '"a/link" is a symbolic link that leaves the repository',
      '"b/link" is a symbolic link to an absolute path',
    ]);
  });

  it('holds the limits: files, bytes per file, bytes in all', () => {
    const limits = { files: 2, fileBytes: 4, totalBytes: 6 };
    expect(validateChanges([file('a'), file('b'), file('c')], 'p', limits)).toEqual({
      ok: false,
      problems: ['3 files changed; at most 2 are applied at once'],
    });
    expect(validateChanges([file('a', '12345')], 'p', limits)).toEqual({
      ok: false,
      problems: ['"a" is 5 bytes; at most 4 per file'],
    });
    expect(validateChanges([file('a', '1234'), file('b', '123')], 'p', limits)).toEqual({
      ok: false,
      problems: ['the changes hold 7 bytes; at most 6 in all'],
    });
  });

  it('refuses a path listed twice, a path that is a file and a folder, content not base64', () => {
    const result = validateChanges(
      [file('a'), file('a'), file('a/b'), { path: 'c', mode: '100644', content: '!!!' }],
      'docs/plans',
    );
    expect(!result.ok && result.problems).toEqual([
      '"a" is listed twice',
      '"c" has content that is not base64',
      '"a" is both a file and a folder',
    ]);
  });
});
