/**
 * The caller's own routes (docs/users.md): `GET /sessions` (their sessions, newest change first),
 * `GET /usage` (per day and model), `GET /users/me`, `GET /users/me/export` (everything, as JSON
 * lines, streamed) and `DELETE /users/me` (every session erased; the usage numbers stay). The list
 * and the numbers come from the user's object; the sessions' content from each session's object.
 */
import { usersQuerySchema } from '../../api/users-query';
import { readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { userObject, type Owner } from '../../users/owner';
import { utcDay } from '../../users/quota';
import type { AuthedRequest } from '../auth';
import { readQuery } from '../read-query';
import { sessionStub } from '../session-stub';

/** The widest `GET /usage` range, in days. */
const MAX_USAGE_DAYS = 366;
/** Sessions erased at once by `DELETE /users/me`. */
const ERASE_CONCURRENCY = 6;

export async function listSessions(request: AuthedRequest, env: Env): Promise<Response> {
  const query = readQuery(usersQuerySchema.list, request);
  return Response.json(await userObject(env, request.owner).sessions(query.limit, query.cursor));
}

export async function getUsage(request: AuthedRequest, env: Env): Promise<Response> {
  const query = readQuery(usersQuerySchema.usage, request);
  const today = utcDay(Date.now());
  const to = query.to ?? (query.from && query.from > today ? query.from : today);
  const from = query.from ?? (to < today ? to : today);
  if ((Date.parse(to) - Date.parse(from)) / 86_400_000 + 1 > MAX_USAGE_DAYS) {
    throw new ApiError(400, 'invalid_query', `The range is at most ${MAX_USAGE_DAYS} days; ask for the rest in another request.`);
  }
  return Response.json(await userObject(env, request.owner).usage(from, to));
}

export async function getMe(request: AuthedRequest, env: Env): Promise<Response> {
  const { users } = readConfig(env);
  const summary = await userObject(env, request.owner).summary();
  const now = Date.now();
  const resetAt = new Date(Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000).toISOString();
  const { jurisdiction } = request.owner;
  return Response.json({
    userId: request.owner.userId,
    ...summary,
    limits: { dailyTokens: users.dailyTokens || null, dailyCostUsd: users.dailyCostUsd || null, resetAt },
    ...(jurisdiction ? { jurisdiction } : {}),
  });
}

/** Every session's lines in turn, each session's read as it is sent: one session's data in memory at a time. */
export async function exportMe(request: AuthedRequest, env: Env): Promise<Response> {
  const owner = request.owner;
  const ids = sessionIds(env, owner);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await ids.next();
        if (next.done) return controller.close();
        const exported = await sessionStub(env, owner, next.value).exportForUser(next.value);
        if (!exported.ok) continue; // erased meanwhile
        // Read to its end, never cancelled: a cancelled RPC stream breaks the object's connection.
        const reader = exported.body.getReader();
        for (let part = await reader.read(); !part.done; part = await reader.read()) controller.enqueue(part.value);
        return;
      }
    },
  });
  return new Response(body, { headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' } });
}

export async function deleteMe(request: AuthedRequest, env: Env): Promise<Response> {
  const owner = request.owner;
  const all: string[] = [];
  for await (const id of sessionIds(env, owner)) all.push(id);
  let deletedSessions = 0;
  for (let at = 0; at < all.length; at += ERASE_CONCURRENCY) {
    const erased = await Promise.all(all.slice(at, at + ERASE_CONCURRENCY).map((id) => sessionStub(env, owner, id).eraseForUser()));
    for (const result of erased) {
      if (!result.ok) throw new ApiError(503, 'erase_incomplete', 'Some sessions could not be erased; send the request again to erase the rest.');
      if (result.erased) deletedSessions++;
    }
  }
  await userObject(env, owner).forgetSessions();
  return Response.json({ deletedSessions });
}

async function* sessionIds(env: Env, owner: Owner): AsyncGenerator<string> {
  let cursor: string | undefined;
  do {
    const page = await userObject(env, owner).sessions(100, cursor);
    for (const session of page.sessions) yield session.sessionId;
    cursor = page.next;
  } while (cursor !== undefined);
}
