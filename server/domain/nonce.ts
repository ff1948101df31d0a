import { TIMESTAMP_SKEW_SECONDS } from '../../client/protocol/index.ts';

/**
 * Beyond the 300 s skew window. Instances' clocks differ a little; a nonce purged by one server
 * must already be too old for every other to accept its timestamp.
 */
export const NONCE_RETENTION_MARGIN_SECONDS = 60;

/**
 * Unix second until which a nonce must be remembered. A request is accepted while its timestamp
 * is at most 300 s in the past, so a replay can pass the timestamp check until T + 300; keeping
 * the nonce past that (plus the margin) catches every replay that could pass, and lets the store
 * forget it afterwards. It is counted from the signed timestamp, not from when the request
 * arrived, because the timestamp is what the freshness check judges.
 */
export function nonceExpiresAt(timestampSeconds: number, marginSeconds = NONCE_RETENTION_MARGIN_SECONDS): number {
  if (!Number.isSafeInteger(timestampSeconds)) throw new RangeError(`timestampSeconds must be an integer, got ${timestampSeconds}`);
  if (!Number.isSafeInteger(marginSeconds) || marginSeconds < 0) throw new RangeError('marginSeconds must be a non-negative integer');
  return timestampSeconds + TIMESTAMP_SKEW_SECONDS + marginSeconds;
}

/** Whether a stored nonce may be purged at `nowSeconds`. */
export function isNonceExpired(expiresAtSeconds: number, nowSeconds: number): boolean {
  return Math.floor(nowSeconds) > expiresAtSeconds;
}
