/**
 * itty middleware: one request of the user's against the rate limit and, for a request that calls a
 * model (a turn, an AG-UI run), the daily quotas (`src/users/admission.ts`). What the user's object
 * answered of today's totals goes on to the session, which checks the quotas again before each model
 * call without asking again.
 */
import type { Env } from '../env';
import { admit } from '../users/admission';
import type { DayTotals } from '../users/quota';
import type { AuthedRequest } from './auth';

export type AdmittedRequest = AuthedRequest & { today?: DayTotals };

export async function withAdmission(request: AdmittedRequest, env: Env): Promise<void> {
  const path = new URL(request.url).pathname;
  const callsModel = /^\/sessions\/[^/]+\/turns$/.test(path) || path === '/ag-ui';
  const today = await admit(env, request.owner, { callsModel });
  if (today) request.today = today;
}
