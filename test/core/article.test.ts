import { withArticle } from '../../src/core/index.js';

describe('the article before a name in a message', () => {
  it('is "an" before a vowel letter, in either case', () => {
    expect(withArticle('OpenSpec')).toBe('an OpenSpec');
    expect(withArticle('issue_comment')).toBe('an issue_comment');
    expect(withArticle('Ubuntu')).toBe('an Ubuntu');
  });

  it('is "a" before any other letter', () => {
    expect(withArticle('Kiro')).toBe('a Kiro');
    expect(withArticle('spec-kit')).toBe('a spec-kit');
    expect(withArticle('Task Master')).toBe('a Task Master');
    expect(withArticle('pull_request_target')).toBe('a pull_request_target');
  });
});
