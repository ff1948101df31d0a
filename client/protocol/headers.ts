/** Request headers of the v1 signing scheme. */
export const HEADER_KEY_ID = 'X-Service-Key-Id';
export const HEADER_TIMESTAMP = 'X-Service-Timestamp';
export const HEADER_NONCE = 'X-Service-Nonce';
export const HEADER_SIGNATURE = 'X-Service-Signature';
export const HEADER_IDEMPOTENCY_KEY = 'Idempotency-Key';

/** Webhook delivery headers. The signature travels in the same header name as on requests. */
export const HEADER_WEBHOOK_SIGNATURE = HEADER_SIGNATURE;
export const HEADER_EVENT_ID = 'X-Service-Event-Id';
export const HEADER_EVENT_TYPE = 'X-Service-Event-Type';
export const HEADER_DELIVERY_ATTEMPT = 'X-Service-Delivery-Attempt';

/** The scheme is versioned by this prefix of the request signature header (webhooks have none). */
export const SIGNATURE_PREFIX = 'v1=';

export const TIMESTAMP_SKEW_SECONDS = 300;
export const NONCE_MAX_LENGTH = 128;

/** The same names grouped, for `headers.set(HEADERS.nonce, …)`. */
export const HEADERS = {
  keyId: HEADER_KEY_ID,
  timestamp: HEADER_TIMESTAMP,
  nonce: HEADER_NONCE,
  signature: HEADER_SIGNATURE,
  idempotencyKey: HEADER_IDEMPOTENCY_KEY,
  webhookSignature: HEADER_WEBHOOK_SIGNATURE,
  eventId: HEADER_EVENT_ID,
  eventType: HEADER_EVENT_TYPE,
  deliveryAttempt: HEADER_DELIVERY_ATTEMPT,
} as const;
