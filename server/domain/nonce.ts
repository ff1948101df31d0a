import { TIMESTAMP_SKEW_SECONDS } from '../../client/protocol/index.ts';

/**
 * The partner document's x-signing `nonce`: a nonce is remembered at least until its timestamp is
 * more than `timestamp-skew-seconds` (TIMESTAMP_SKEW_SECONDS) in the past. This margin goes
 * beyond that: instances' clocks differ a little, and a nonce purged by one server must already be
 * too old for every other to accept its timestamp.
 */
export const NONCE_RETENTION_MARGIN_SECONDS = 60;

/**
 * Unix second until which a nonce must be remembered (the store keeps it while expires_at is not
 * before now). A request is accepted while its timestamp is at most the skew in the past, so a
 * replay can pass the timestamp check until T + skew; keeping the nonce past that (plus the
 * margin) catches every replay that could pass, and lets the store forget it afterwards. It is
 * counted from the signed timestamp, not from when the request arrived, because the timestamp is
 * what the freshness check judges. Production calls it from http/partner-auth.ts.
 */
export function nonceExpiresAt(timestampSeconds: number, marginSeconds = NONCE_RETENTION_MARGIN_SECONDS): number {
  if (!Number.isSafeInteger(timestampSeconds))
    throw new RangeError(`timestampSeconds must be an integer, got ${timestampSeconds}`);
  if (!Number.isSafeInteger(marginSeconds) || marginSeconds < 0)
    throw new RangeError('marginSeconds must be a non-negative integer');
  return timestampSeconds + TIMESTAMP_SKEW_SECONDS + marginSeconds;
}
