import { createHash } from 'node:crypto';
import { canonicalJson, parseJsonBytes } from './canonical-json.ts';

/** Keys are kept at least this long (x-idempotency retention-hours of POST /orders). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** The Retry-After of an in-flight conflict: the first request is expected to finish soon. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/**
 * SHA-256 hex of the body's canonical JSON, so a retry with other whitespace or key order
 * matches. A body that is not JSON is hashed over its raw bytes so it still compares exactly;
 * those bytes can never equal a canonical text, which is always valid JSON, so the two kinds
 * of fingerprint cannot collide short of SHA-256 itself. Numbers compare as the server reads
 * them (`1.0` = `1`; integers past 2^53 that parse to the same double are the same body),
 * which is what the order would be created from.
 */
export function fingerprint(rawBody: Uint8Array): string {
  const parsed = parseJsonBytes(rawBody);
  let bytes: Uint8Array = rawBody;
  if (parsed !== undefined) {
    try {
      bytes = Buffer.from(canonicalJson(parsed), 'utf8');
    } catch {
      // Valid JSON with a lone-surrogate escape has no canonical form; its raw bytes still
      // identify it exactly.
    }
  }
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The fingerprint of a call where one key may be sent to several targets (the public POSTs): the
 * hash of its method and request target, a dot, then the body's fingerprint. The two halves are
 * kept apart so a conflict can say which of them differed (a key names one call: the same method,
 * path and body), without the stored record having to keep the target itself.
 */
export function requestFingerprint(method: string, target: string, rawBody: Uint8Array): string {
  const call = createHash('sha256').update(`${method.toUpperCase()} ${target}`).digest('hex');
  return `${call}.${fingerprint(rawBody)}`;
}

/** What differs between two fingerprints: only a requestFingerprint has a call half to tell apart. */
function difference(stored: string, incoming: string): 'call' | 'body' | 'call and body' {
  const [storedCall, storedBody] = stored.split('.');
  const [incomingCall, incomingBody] = incoming.split('.');
  if (storedBody === undefined || incomingBody === undefined) return 'body';
  if (storedCall === incomingCall) return 'body';
  return storedBody === incomingBody ? 'call' : 'call and body';
}

const DIFFERENCE_WORDS = {
  body: 'a different request body',
  call: 'a different method or path',
  'call and body': 'a different method or path and a different request body',
} as const;

/**
 * What the store holds under a (credential, key). `in-flight` is written when the operation
 * starts executing and `completed` once its answer is stored; `expiresAt` (ms) is the retention
 * end for a completed record, and for an in-flight one a lease longer than any request can run,
 * so that a crash mid-request does not lock the key forever.
 */
export interface IdempotencyRecord {
  readonly fingerprint: string;
  readonly state: 'in-flight' | 'completed';
  readonly expiresAt: number;
}

export type IdempotencyDecision =
  | { action: 'execute' }
  | { action: 'replay' }
  | { action: 'conflict-different-body'; code: 'conflict'; message: string }
  | { action: 'conflict-in-flight'; code: 'conflict'; retryAfterSeconds: number; message: string };

/**
 * A different body is refused before an in-flight check: waiting would not help it, so it gets
 * no Retry-After.
 */
export function decideIdempotency(
  record: IdempotencyRecord | undefined,
  incomingFingerprint: string,
  key: string,
  now: number,
): IdempotencyDecision {
  if (record === undefined || now >= record.expiresAt) return { action: 'execute' };
  if (record.fingerprint !== incomingFingerprint)
    return differentRequest(key, difference(record.fingerprint, incomingFingerprint));
  if (record.state === 'in-flight') return inFlight(key);
  return { action: 'replay' };
}

// Says what differed, never what was sent first: the caller knows its own request, and the
// first one's path or body may carry what this caller should not see echoed.
const differentRequest = (key: string, what: keyof typeof DIFFERENCE_WORDS): IdempotencyDecision => ({
  action: 'conflict-different-body',
  code: 'conflict',
  message: `Idempotency-Key ${JSON.stringify(key)} was used with ${DIFFERENCE_WORDS[what]}`,
});

const inFlight = (key: string): Extract<IdempotencyDecision, { action: 'conflict-in-flight' }> => ({
  action: 'conflict-in-flight',
  code: 'conflict',
  retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS,
  message: `A request with Idempotency-Key ${JSON.stringify(key)} is still executing; retry in ${IN_FLIGHT_RETRY_AFTER_SECONDS} s`,
});

/** A record as the store keeps it (store/idempotency.ts): the answer is stored once it is done. */
export interface StoredIdempotencyRecord {
  readonly fingerprint: string;
  readonly state: 'executing' | 'done';
  readonly expires_at: number;
  readonly status_code: number | null;
  readonly body: string | null;
}

export type ExistingKeyDecision =
  { action: 'replay'; statusCode: number; body: string } | Extract<IdempotencyDecision, { code: 'conflict' }>;

/**
 * The decision for a request whose key the store would not let it claim, on both surfaces (POST
 * /orders and the public POSTs). The claim itself takes over a record that expired or was
 * abandoned, so a record it did not take over, or one marked done whose answer is not stored yet,
 * belongs to a request still executing: 409 with Retry-After, never a second execution.
 */
export function decideForExistingKey(
  existing: StoredIdempotencyRecord,
  incomingFingerprint: string,
  key: string,
  now: number,
): ExistingKeyDecision {
  const answered = existing.state === 'done' && existing.status_code !== null && existing.body !== null;
  const record: IdempotencyRecord = {
    fingerprint: existing.fingerprint,
    state: answered ? 'completed' : 'in-flight',
    expiresAt: existing.expires_at,
  };
  const decision = decideIdempotency(record, incomingFingerprint, key, now);
  if (decision.action === 'conflict-different-body' || decision.action === 'conflict-in-flight') return decision;
  if (decision.action === 'replay' && existing.status_code !== null && existing.body !== null)
    return { action: 'replay', statusCode: existing.status_code, body: existing.body };
  return inFlight(key);
}

/** When a record written at `nowMs` may be forgotten. */
export function idempotencyExpiresAt(nowMs: number): number {
  return nowMs + IDEMPOTENCY_RETENTION_MS;
}

// The answers of x-idempotency `stored`: outcomes of the operation itself. Refusals before it
// runs (400, 401, 403, 413, 415, 429), a conflict about the key, and 5xx are not stored, so a
// corrected or later retry can still succeed.
const STORED: ReadonlyArray<{ status: number; code?: string }> = [
  { status: 201 },
  { status: 404, code: 'not_found' },
  { status: 409, code: 'domain_reserved' },
  { status: 422, code: 'price_mismatch' },
  { status: 422, code: 'quote_expired' },
];

/** Whether an answer of POST /orders is kept under its Idempotency-Key and replayed. */
export function isStoredOutcome(status: number, code?: string): boolean {
  return STORED.some((s) => s.status === status && (s.code === undefined || s.code === code));
}
