/** What the stand-in model servers received (see `upstream-server.ts`), read from inside workerd. */
import { env } from 'cloudflare:workers';
import { TITLE_SYSTEM_PROMPT } from '../../src/agent/title';

export const upstreamUrl = env.OPENAI_BASE_URL!.replace(/\/v1$/, '');

/**
 * The request bodies of turns that the stand-in received whose messages (or system prompt) mention
 * `marker`, aborted ones left out, and the side calls that name a conversation too (see `titleCalls`).
 */
export async function sentWith(marker: string): Promise<any[]> {
  return (await received(marker)).filter((body) => !isTitleCall(body));
}

/** The side calls that asked for the title of a conversation whose messages mention `marker`. */
export async function titleCalls(marker: string): Promise<any[]> {
  return (await received(marker)).filter(isTitleCall);
}

/** The request bodies that mention `marker` whose streams the Worker closed before their end (an abort). */
export async function abortedWith(marker: string): Promise<any[]> {
  return (await logged(marker)).filter((body) => body.closedEarly);
}

async function received(marker: string): Promise<any[]> {
  return (await logged(marker)).filter((body) => !body.closedEarly);
}

async function logged(marker: string): Promise<any[]> {
  const log = (await (await fetch(`${upstreamUrl}/__log`)).json()) as any[];
  return log.filter((body) => JSON.stringify([body.system, body.messages]).includes(marker));
}

function isTitleCall(body: any): boolean {
  return JSON.stringify([body.system, body.messages?.[0]]).includes(TITLE_SYSTEM_PROMPT);
}
