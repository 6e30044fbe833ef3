/** A route's query string, checked by its schema: `400 invalid_query` with the first issue. */
import type { IRequest } from 'itty-router';
import { ApiError } from '../lib/errors';
import { describeIssue } from '../lib/explain-issue';
import type { z } from '../lib/zod';

export function readQuery<S extends z.ZodMiniType>(schema: S, request: IRequest): z.output<S> {
  // itty gives a parameter named twice as an array, which a schema of one value reports only as "NaN".
  const repeated = Object.entries(request.query).find(([, value]) => Array.isArray(value));
  if (repeated) throw new ApiError(400, 'invalid_query', `The query is not valid: ${repeated[0]} is given more than once.`);
  const parsed = schema.safeParse({ ...request.query });
  if (parsed.success) return parsed.data;
  const issue = describeIssue(parsed.error.issues[0]);
  throw new ApiError(400, 'invalid_query', `The query is not valid: ${issue.path || 'query'}: ${issue.clause}.`);
}
