/** A GitHub actor as payloads and the REST API show it. */
export interface Actor {
  login: string;
  type?: string;
}

/** Bots never command, review or approve for the loop — the loop itself included. */
export function isBot(actor: Actor | null | undefined): boolean {
  return !actor || actor.type === 'Bot' || actor.login.endsWith('[bot]');
}
