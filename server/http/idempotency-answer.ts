// How both surfaces answer a decision about an Idempotency-Key they could not claim
// (domain/idempotency.ts decideForExistingKey): a conflict is the `conflict` error, with
// Retry-After while the first request is still executing; a replay repeats the stored answer.
import type { Response } from 'express';
import type { ExistingKeyDecision } from '../domain/idempotency.ts';
import { ApiError } from './errors.ts';

/** Throws the decision's conflict; returns the stored answer to replay otherwise. */
export function replayOrThrow(decision: ExistingKeyDecision): { statusCode: number; body: string } {
  if (decision.action === 'conflict-different-body') throw new ApiError('conflict', decision.message);
  if (decision.action === 'conflict-in-flight')
    throw new ApiError('conflict', decision.message, undefined, { 'Retry-After': String(decision.retryAfterSeconds) });
  return decision;
}

/** Sends a stored answer again, marked as a replay. */
export function sendReplay(
  res: Response,
  statusCode: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(statusCode).send(body);
}
