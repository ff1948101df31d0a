/**
 * The codes a protocol check can end in. They are the `code` of the API's `Error` body, so the
 * server maps a thrown ProtocolError straight to its answer (the status comes from the spec's
 * `x-status-of-code`, not from here, so it is fixed in one place).
 */
export type ProtocolErrorCode =
  | 'validation_error'
  | 'missing_credentials'
  | 'missing_signature_headers'
  | 'invalid_timestamp'
  | 'invalid_signature'
  | 'replay_detected';

/** One failing member, in the shape of the `ErrorDetail` schema. */
export interface ProtocolErrorDetail {
  readonly path: string;
  readonly message: string;
}

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly code: ProtocolErrorCode;
  readonly details: readonly ProtocolErrorDetail[];

  constructor(code: ProtocolErrorCode, message: string, details: readonly ProtocolErrorDetail[] = []) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

export function isProtocolError(value: unknown): value is ProtocolError {
  return value instanceof ProtocolError;
}
