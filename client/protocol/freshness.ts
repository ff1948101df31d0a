import { NONCE_MAX_LENGTH, TIMESTAMP_SKEW_SECONDS } from './headers.ts';

/** `malformed` and `skewed` both answer `invalid_timestamp`; they are told apart for logs and tests. */
export type TimestampCheck = 'ok' | 'malformed' | 'skewed';

// Ten digits reach 9999999999 (year 2286) and shut out millisecond timestamps (13 digits), the
// most common mistake. No sign, fraction, exponent or whitespace: the header is signed as is,
// so there must be one spelling a server accepts.
const TIMESTAMP_PATTERN = /^[0-9]{1,10}$/;
// Printable ASCII, space included (0x20-0x7E); it keeps line breaks out of the canonical string.
const NONCE_PATTERN = new RegExp(`^[\\x20-\\x7E]{1,${NONCE_MAX_LENGTH}}$`);

/**
 * Classifies an X-Service-Timestamp header against the server clock. A drift of exactly
 * `skewSeconds` is accepted, in either direction. `nowSeconds` is truncated to whole seconds,
 * so `Date.now() / 1000` can be passed directly.
 */
export function checkTimestamp(
  header: string,
  nowSeconds: number,
  skewSeconds: number = TIMESTAMP_SKEW_SECONDS,
): TimestampCheck {
  if (!Number.isFinite(nowSeconds) || !Number.isFinite(skewSeconds)) {
    throw new RangeError('nowSeconds and skewSeconds must be finite numbers');
  }
  if (!TIMESTAMP_PATTERN.test(header)) return 'malformed';
  const drift = Math.abs(Number(header) - Math.floor(nowSeconds));
  return drift <= skewSeconds ? 'ok' : 'skewed';
}

/** True when checkTimestamp says `ok`. */
export function isValidTimestamp(
  header: string,
  nowSeconds: number,
  skewSeconds: number = TIMESTAMP_SKEW_SECONDS,
): boolean {
  return checkTimestamp(header, nowSeconds, skewSeconds) === 'ok';
}

/** 1 to 128 printable ASCII characters. */
export function isValidNonce(nonce: string): boolean {
  return NONCE_PATTERN.test(nonce);
}

/** The X-Service-Timestamp value for a moment given in milliseconds (e.g. `Date.now()`). */
export function timestampFromMillis(millis: number): string {
  if (!Number.isFinite(millis) || millis < 0) throw new RangeError('millis must be a non-negative finite number');
  return String(Math.floor(millis / 1000));
}
