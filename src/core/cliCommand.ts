/**
 * How a user runs coder-loop's CLI, as the loop prints it in its replies and errors: coder-loop
 * is not published on npm, so `npx coder-loop …` would fail (npm 404). npm runs a package
 * straight from a GitHub repository, `npx github:<owner>/<name> …` (the README's form): the loop
 * names its own repository — the Action from its `uses:` reference (GITHUB_ACTION_REPOSITORY),
 * the App from CODER_LOOP_REPOSITORY or its clone's `origin` on github.com. Pure.
 */

/** The CLI's own name (package.json `bin`): what an installed CLI is run as. */
export const CLI_NAME = 'coder-loop';

/** `owner/name` of a GitHub repository, as `github:` takes it; anything else is refused. */
const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

/**
 * The command prefix the loop prints: `npx github:<owner>/<name>` for a GitHub repository that
 * holds coder-loop, else the CLI's own name (an installed CLI; docs/cli.md says how).
 */
export function cliCommand(repository: string | undefined): string {
  const name = repository?.trim();
  return name && REPOSITORY.test(name) ? `npx github:${name}` : CLI_NAME;
}

/** A repository's `owner/name` from its github.com web page (`https://github.com/o/r`). */
export function githubRepositoryOf(homepage: string | undefined): string | undefined {
  const m = homepage ? /^https:\/\/github\.com\/([^/]+\/[^/]+)$/.exec(homepage) : null;
  return m?.[1];
}

/**
 * A text the core wrote with CLI commands in code spans (`` `coder-loop lint "X"` ``, the CLI by
 * its own name), each command said as users run the CLI here (`cli`, from cliCommand or from how
 * the CLI itself was started): the one rewrite of a printed command's prefix. Pure.
 */
export function asRun(text: string, cli: string): string {
  if (cli === CLI_NAME) return text;
  return text.replace(
    new RegExp(`(\`+ ?)${CLI_NAME} (?=[a-z-])`, 'g'),
    (_, open: string) => `${open}${cli} `,
  );
}
