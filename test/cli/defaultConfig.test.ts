import { DEFAULT_CONFIG as WRITTEN_OUT } from '../../src/cli/defaultConfig.js';
import { ConfigSchema, DEFAULT_CONFIG, parseConfigText } from '../../src/core/config.js';

// The CLI's copy of the defaults (read where a repository has no .github/coder.yml, so that the
// call loads no zod) is the schema's own: zod stays the authority.
describe("the CLI's defaults are the config schema's", () => {
  it('equal what the schema makes of no config, key for key and in the same order', () => {
    expect(WRITTEN_OUT).toStrictEqual(ConfigSchema.parse({}));
    expect(JSON.stringify(WRITTEN_OUT)).toBe(JSON.stringify(DEFAULT_CONFIG));
  });

  it('equal what the loop reads from an empty .github/coder.yml', () => {
    expect(parseConfigText('')).toStrictEqual({ config: WRITTEN_OUT, problems: [] });
  });
});
