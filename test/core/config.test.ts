import { DEFAULT_CONFIG, parseConfig, parseConfigText } from '../../src/core/index.js';

describe('config', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_CONFIG).toEqual({
      plansDir: 'docs/plans',
      architects: [],
      reviewers: [],
      specCheck: 'require',
      allowSelfApproval: false,
      locked: [],
      testPaths: ['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**'],
      requiredChecks: [],
      ciStallMinutes: 30,
      maxRetries: 3,
      rerun: { infrastructure: true, failures: false, perHead: 2 },
      budget: {},
      autoMerge: false,
      deleteBranchOnMerge: true,
      quick: { label: 'coder:quick', maxFiles: 1, maxLines: 50, log: false },
    });
  });

  it('treats an empty file as the defaults', () => {
    expect(parseConfigText('')).toEqual({ config: DEFAULT_CONFIG, problems: [] });
    expect(parseConfigText('# only a comment\n').config).toEqual(DEFAULT_CONFIG);
  });

  it('reads a full config', () => {
    const { config } = parseConfigText(
      'plansDir: plans\narchitects: [alice, my-org/architects]\nmaxRetries: 5\nquick:\n  maxLines: 20\n',
    );
    expect(config).toMatchObject({
      plansDir: 'plans',
      architects: ['alice', 'my-org/architects'],
      maxRetries: 5,
      quick: { label: 'coder:quick', maxFiles: 1, maxLines: 20, log: false },
    });
  });

  it('names the key, the problem and the line', () => {
    const { config, problems } = parseConfigText(
      'maxRetries: 0\nquick:\n  maxFile: 2\narchitects: ["not a login!"]\n',
    );
    expect(config).toBeUndefined();
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [1, '`maxRetries`: Too small: expected number to be >=1.'],
      [3, '`quick` has unknown key `maxFile`. Did you mean `maxFiles`?'],
      [4, '`architects.0`: must be a GitHub login ("alice") or a team ("my-org/architects").'],
    ]);
    expect(problems.every((p) => p.path === '.github/coder.yml' && p.severity === 'error')).toBe(
      true,
    );
  });

  it('an unknown key gets the known one it is close to, at its own level', () => {
    const { problems } = parseConfigText(
      'maxRetry: 2\nagent:\n  command: claude\n  envs: [A]\nfoo: 1\nplanDir: x\n',
    );
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [
        1,
        'The top level has unknown keys `maxRetry`, `foo`, `planDir`. Did you mean `maxRetry` → `maxRetries`, `planDir` → `plansDir`?',
      ],
      [4, '`agent` has unknown key `envs`. Did you mean `env`?'],
    ]);
  });

  it("refuses requiredChecks naming the loop's own check, with its line", () => {
    const { config, problems } = parseConfigText('requiredChecks:\n  - test\n  - coder-loop\n');
    expect(config).toBeUndefined();
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [
        1,
        "`requiredChecks.1`: must not name coder-loop: that is the loop's own check, not CI (name the CI jobs to wait for).",
      ],
    ]);
  });

  it('reads the agent with its defaults; absent means no agent', () => {
    expect(DEFAULT_CONFIG.agent).toBeUndefined();
    const { config } = parseConfigText(
      'agent:\n  command: \'claude -p "$(cat "$CODER_PROMPT_FILE")"\'\n  env: [ANTHROPIC_API_KEY]\n',
    );
    expect(config?.agent).toEqual({
      command: 'claude -p "$(cat "$CODER_PROMPT_FILE")"',
      timeoutMinutes: 30,
      keepPartialWork: false,
      maxReviewRounds: 3,
      maxPauses: 3,
      pauseMinutes: 60,
      env: ['ANTHROPIC_API_KEY'],
    });
  });

  it('agent.keepPartialWork: a boolean, off unless set', () => {
    expect(
      parseConfigText('agent:\n  command: x\n  keepPartialWork: true\n').config?.agent,
    ).toMatchObject({ keepPartialWork: true });
    const bad = parseConfigText('agent:\n  command: x\n  keepPartialWork: sometimes\n');
    expect(bad.config).toBeUndefined();
    expect(bad.problems[0]?.message).toMatch(/boolean/);
  });

  it('refuses an agent without a command, a bad variable name, a reserved variable', () => {
    const { problems } = parseConfigText(
      'agent:\n  timeoutMinutes: 0\n  env: ["A B", GITHUB_TOKEN]\n',
    );
    expect(problems.map((p) => p.message)).toEqual([
      '`agent.timeoutMinutes`: Too small: expected number to be >=1.',
      '`agent.env.0`: must be an environment variable name.',
      '`agent.env.1`: must not be a CODER_, GITHUB_, ACTIONS_, RUNNER_ or INPUT_ variable (the loop sets or withholds those).',
      // A missing key has no line of its own: it comes last.
      '`agent.command`: Invalid input: expected string, received undefined.',
    ]);
  });

  it.each([
    ['docs/plans', 'docs/plans'],
    ['./docs/plans', 'docs/plans'],
    ['./docs/plans/', 'docs/plans'],
    ['docs//plans', 'docs/plans'],
    ['docs/./plans/', 'docs/plans'],
    ['docs\\plans', 'docs/plans'],
    [' plans ', 'plans'],
    ['.coder/plans', '.coder/plans'],
  ])('normalises plansDir %j to %j', (written, normal) => {
    expect(parseConfig({ plansDir: written })).toEqual({
      config: { ...DEFAULT_CONFIG, plansDir: normal },
      problems: [],
    });
  });

  it.each([
    [
      '/docs/plans',
      'must be a folder relative to the repository root, not the absolute "/docs/plans"',
    ],
    ['C:\\plans', 'must be a folder relative to the repository root, not the absolute "C:\\plans"'],
    ['../plans', 'must be a path inside the repository, without ".."'],
    ['docs/../../plans', 'must be a path inside the repository, without ".."'],
    ['.', 'must name a folder inside the repository, not its root or ""'],
    ['./', 'must name a folder inside the repository, not its root or ""'],
    ['', 'Too small: expected string to have >=1 characters'],
  ])('refuses plansDir %j: %s', (written, why) => {
    const { config, problems } = parseConfigText(
      `maxRetries: 3\nplansDir: ${JSON.stringify(written)}\n`,
    );
    expect(config).toBeUndefined();
    expect(problems.map((p) => [p.line, p.message])).toEqual([[2, `\`plansDir\`: ${why}.`]]);
  });

  it.each([
    ['src/core/**', 'src/core/**'],
    ['./src/core/**', 'src/core/**'],
    ['src//core/**', 'src/core/**'],
    ['src/./core/*.ts', 'src/core/*.ts'],
    ['src/core/', 'src/core/**'],
    ['!./src/core/**', '!src/core/**'],
    ['**/*.test.*', '**/*.test.*'],
    ['*.md', '*.md'],
  ])('normalises the glob %j to %j, in locked and in testPaths', (written, normal) => {
    const { config } = parseConfig({ locked: [written], testPaths: [written] });
    expect(config?.locked).toEqual([normal]);
    expect(config?.testPaths).toEqual([normal]);
  });

  it.each([
    [
      '/src/**',
      'is matched against paths from the repository root, which never start with "/": write "src/**"',
    ],
    ['../src/**', 'must match paths inside the repository, without ".."'],
    ['src/../lib/**', 'must match paths inside the repository, without ".."'],
    ['./', 'must match some path of the repository'],
    ['', 'Too small: expected string to have >=1 characters'],
  ])('refuses the glob %j: %s', (written, why) => {
    expect(parseConfig({ locked: ['ok/**', written] }).problems.map((p) => p.message)).toEqual([
      `\`locked.1\`: ${why}.`,
    ]);
    expect(parseConfig({ testPaths: [written] }).problems.map((p) => p.message)).toEqual([
      `\`testPaths.0\`: ${why}.`,
    ]);
  });

  it('refuses a plansDir outside the repository', () => {
    expect(parseConfig({ plansDir: '../elsewhere' }).problems[0]!.message).toBe(
      '`plansDir`: must be a path inside the repository, without "..".',
    );
  });

  it('refuses `_extends` by name, with its line and the fix, alongside any other problem', () => {
    const { config, problems } = parseConfigText(
      'maxRetries: 2\n_extends: other-repo:.github/coder.yml\nquick:\n  maxFile: 2\n',
    );
    expect(config).toBeUndefined();
    expect(problems.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        2,
        "`_extends` is not followed: coder-loop reads only this repository's own .github/coder.yml, never another repository's.",
        'Copy the settings you want from the extended file into this file, and remove `_extends`.',
      ],
      [
        4,
        '`quick` has unknown key `maxFile`. Did you mean `maxFiles`?',
        'See docs/configuration.md for every key and its type.',
      ],
    ]);
    // Without the text (no line to give) and under another path (the Action's `config-path`).
    expect(parseConfig({ _extends: '.github' }, 'ci/coder.yml').problems).toEqual([
      expect.objectContaining({
        path: 'ci/coder.yml',
        line: undefined,
        message: expect.stringContaining("this repository's own ci/coder.yml"),
      }),
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    const { problems } = parseConfigText('maxRetries: 3\nquick: [unclosed\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/^The YAML does not parse: /);
    expect(problems[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it('refuses a config that is not a mapping, and a huge one', () => {
    expect(parseConfigText('- a\n- b\n').problems[0]!.message).toBe(
      'The config must be a mapping of keys to values.',
    );
    expect(parseConfigText(`# ${'x'.repeat(70_000)}`).problems[0]!.message).toBe(
      'The config is larger than 64 KiB.',
    );
  });

  it('survives a YAML alias bomb quickly', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++) {
      const prev = String.fromCharCode(97 + i);
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
      );
    }
    bomb.push('architects: *j');
    const { problems } = parseConfigText(bomb.join('\n'));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.length).toBeLessThan(100);
  });
});
