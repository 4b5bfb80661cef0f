import { filterAdmits } from '../../src/core/workflows.js';

/**
 * GitHub's filter patterns (the "filter pattern cheat sheet" of the workflow syntax docs), read
 * through picomatch: each row is one of the docs' own examples or a case a loop branch meets.
 */
describe('filterAdmits reads branch filters as GitHub does', () => {
  it.each([
    [['feature/*'], 'feature/my-branch', true],
    [['feature/*'], 'feature/your-branch/x', false],
    [['feature/**'], 'feature/beta-a/my-branch', true],
    [['*'], 'coder/plan/phase-1', false],
    [['**'], 'coder/plan/phase-1', true],
    [['coder**'], 'coder/plan/phase-1', true],
    [['**-1'], 'coder/plan/phase-1', true],
    // `?` is zero or one of the preceding character (github/docs#3377: GitHub confirmed it).
    [['Octoc?t'], 'Octoct', true],
    [['Octoc?t'], 'Octot', true],
    [['Octoc?t'], 'Octocat', false],
    [['*.jsx?'], 'page.js', true],
    [['*.jsx?'], 'page.jsx', true],
    [['v2+'], 'v222', true],
    [['v2+'], 'v', false],
    [['[CB]at'], 'Cat', true],
    [['[1-2]00'], '300', false],
    [['releases/**', '!releases/**-alpha'], 'releases/10-alpha', false],
    [['!releases/**-alpha', 'releases/**'], 'releases/10-alpha', true],
    [['!main'], 'develop', false],
    [['main'], 'main', true],
    [['a.b'], 'axb', false],
  ])('%j admits %s: %s', (patterns, name, admitted) => {
    expect(filterAdmits(patterns, name)).toBe(admitted);
  });
});
