import { fileURLToPath } from 'node:url';

/** The repository root, for tests that read fixtures or run the built binary. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
