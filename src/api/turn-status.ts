/**
 * A turn's state: waiting in the queue, running, or ended (docs/background.md). The word a turn's
 * views, the listing's `status` query and the MCP door's answers share; apart from the answers'
 * schemas (`responses.ts`), which the routes do not make.
 */
import * as z from '../lib/zod';

export const turnStatusSchema = z.enum(['queued', 'running', 'finished', 'cancelled', 'failed']);
export type TurnStatus = z.infer<typeof turnStatusSchema>;
