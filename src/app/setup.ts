/**
 * Probot's setup page (no App credentials yet) registers app.yml with the webhook URL of the
 * smee.io channel it makes, which smee-client forwards to /api/github/webhooks. Without a channel
 * it uses the page's own URL, `http://<host>/`, which this server does not serve (and GitHub
 * cannot reach on localhost): say so, and what to do.
 */
export function setupWithoutProxy(env: NodeJS.ProcessEnv): string | undefined {
  const registered = env.APP_ID && (env.PRIVATE_KEY || env.PRIVATE_KEY_PATH);
  if (registered || env.WEBHOOK_PROXY_URL || env.NODE_ENV === 'production') return undefined;
  return "coder-loop: no webhook proxy channel (smee.io unreachable, or NO_SMEE_SETUP). An App registered from this page gets this page's URL as its webhook URL, where nothing is served: set WEBHOOK_PROXY_URL to a smee.io channel and restart, or after registering set the App's webhook URL to https://<public host>/api/github/webhooks (docs/github-app.md).";
}
