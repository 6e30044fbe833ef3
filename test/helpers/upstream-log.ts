/** What the stand-in model servers received (see `upstream-server.ts`), read from inside workerd. */
import { env } from 'cloudflare:workers';

export const upstreamUrl = env.OPENAI_BASE_URL!.replace(/\/v1$/, '');

/** The request bodies the stand-in received whose messages mention `marker`, aborted ones left out. */
export async function sentWith(marker: string): Promise<any[]> {
  const log = (await (await fetch(`${upstreamUrl}/__log`)).json()) as any[];
  return log.filter((body) => !body.closedEarly && JSON.stringify(body.messages).includes(marker));
}
