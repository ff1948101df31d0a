/**
 * The v1 request-signing and webhook-signing protocol of the partner API. Pure: no I/O, only
 * `node:crypto`. The server, the typed clients and the conformance suite all sign and verify
 * through this module, so there is one canonical string in the repository.
 */
export { ProtocolError, isProtocolError, type ProtocolErrorCode, type ProtocolErrorDetail } from './errors.ts';
export {
  HEADERS,
  HEADER_DELIVERY_ATTEMPT,
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  HEADER_IDEMPOTENCY_KEY,
  HEADER_KEY_ID,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  HEADER_WEBHOOK_SIGNATURE,
  NONCE_MAX_LENGTH,
  SIGNATURE_PREFIX,
  TIMESTAMP_SKEW_SECONDS,
} from './headers.ts';
export { compareCodePoints, hasLoneSurrogate } from './unicode.ts';
export { decodeComponent, encodeComponent } from './percent-encoding.ts';
export { canonicalQuery, compareQueryPairs, parseQueryPairs, type QueryPair } from './canonical-query.ts';
export { EMPTY_BODY_SHA256, bodySha256Hex, type RawBody } from './body-hash.ts';
export { canonicalString, splitRequestTarget, type CanonicalRequest, type RequestTarget } from './canonical-request.ts';
export {
  sign,
  signatureHex,
  signedHeaders,
  verify,
  type SignInput,
  type SignedHeadersInput,
  type VerifyInput,
} from './signature.ts';
export {
  checkTimestamp,
  isValidNonce,
  isValidTimestamp,
  timestampFromMillis,
  type TimestampCheck,
} from './freshness.ts';
export { verifyWebhookSignature, webhookSignature } from './webhook.ts';
