/**
 * A turn's state: waiting in the queue, running, or ended (docs/background.md). The word a turn's
 * views, the listing's `status` query and the MCP door's answers share; apart from the answers'
 * schemas (`responses.ts`), which the routes do not make.
 */
import * as z from '../lib/zod';

/** The states of a turn that has left the queue (what a turn started without its client answers). */
export const STARTED_STATUSES = ['running', 'finished', 'cancelled', 'failed'] as const;

export const turnStatusSchema = z.enum(['queued', ...STARTED_STATUSES]);
export type TurnStatus = z.infer<typeof turnStatusSchema>;
