/**
 * Where a repository's config lives. Its own module, beside config.ts (the schema, zod and
 * js-yaml): a caller that only names the file loads neither.
 */
export const CONFIG_PATH = '.github/coder.yml';
