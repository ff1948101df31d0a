// One error type for every documented failure, and the one handler that turns anything thrown
// (ours, the validator's, body-parser's) into the `Error` body with its documented status.
import type { ErrorRequestHandler, Response } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { NO_FAULTS, WRONG_CODE, type Faults } from '../faults.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The error code this answer carries (the request log and the metrics read it: server/ops/access-log.ts). */
    errorCode?: string;
  }
}

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorDetail = components['schemas']['ErrorDetail'];

/** Status of each code, as `x-status-of-code` in spec/shared/schemas.yaml fixes it. */
export const STATUS_OF: Record<ErrorCode, number> = {
  validation_error: 400,
  missing_idempotency_key: 400,
  invalid_cursor: 400,
  invalid_redirect_uri: 400,
  invalid_grant: 400,
  missing_credentials: 401,
  missing_signature_headers: 401,
  invalid_timestamp: 401,
  invalid_signature: 401,
  replay_detected: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  conflict: 409,
  domain_reserved: 409,
  quote_cooldown: 409,
  invalid_state: 409,
  session_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  misdirected_request: 421,
  price_mismatch: 422,
  quote_expired: 422,
  rate_limited: 429,
  header_fields_too_large: 431,
  internal_error: 500,
  transfer_coding_not_implemented: 501,
  http_version_not_supported: 505,
};

/**
 * 5xx codes that refuse what the client sent, not a failure of the server: another HTTP major
 * version (505) and a transfer coding the server does not implement (501), both of a document's
 * `x-protocol-refusals`. Anyone can send them, so they are logged like the 4xx refusals (a request
 * line at info) and never as `request_failed`, which pages whoever watches for server failures.
 */
const REFUSALS_OF_THE_MESSAGE: ReadonlySet<string> = new Set<ErrorCode>([
  'http_version_not_supported',
  'transfer_coding_not_implemented',
]);

/** Whether an answer reports a failure of the server itself (a 5xx that no client caused on purpose). */
export function isServerFailure(status: number, code: string | undefined): boolean {
  return status >= 500 && !(code !== undefined && REFUSALS_OF_THE_MESSAGE.has(code));
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = STATUS_OF[code];
  }
}

/** Sets the error's headers and answers the `Error` body (`code`, `message`, `request_id`, `details`). */
export function sendError(res: Response, err: ApiError, faults: Faults = NO_FAULTS): void {
  sendErrorBody(res, err, errorBody(res, err, faults), faults);
}

/** The `Error` body of `err` for this response (its request id). */
export function errorBody(res: Response, err: ApiError, faults: Faults = NO_FAULTS): Record<string, unknown> {
  const requestId = res.getHeader('x-request-id');
  return errorBodyOf(err, typeof requestId === 'string' ? requestId : undefined, faults);
}

/** The one writer of the `Error` body (`code`, `message`, `request_id`, `details`); batch entries use it too. */
export function errorBodyOf(
  err: ApiError,
  requestId: string | undefined,
  faults: Faults = NO_FAULTS,
): { code: ErrorCode; message: string; request_id?: string; details?: ErrorDetail[] } {
  return {
    code: faults.has('wrong-error-codes') ? (WRONG_CODE[err.code] ?? err.code) : err.code,
    message: err.message,
    ...(requestId !== undefined ? { request_id: requestId } : {}),
    ...(err.details?.length ? { details: err.details } : {}),
  };
}

/** Sets the error's headers and answers `body` with the error's status. */
export function sendErrorBody(
  res: Response,
  err: ApiError,
  body: Record<string, unknown>,
  faults: Faults = NO_FAULTS,
): void {
  for (const [name, value] of Object.entries(err.headers)) {
    if (name === 'Retry-After' && err.code === 'rate_limited' && faults.has('missing-retry-after')) continue;
    res.setHeader(name, value);
  }
  // Sent without res.json on purpose: the response validator hooks res.json, and a failure of
  // that hook inside the error handler would escape to Express's HTML error page. Error bodies
  // are built here from the one Error shape; the conformance suite checks them from outside.
  res.locals.errorCode = typeof body.code === 'string' ? body.code : err.code;
  res.status(err.status).type('application/json').send(JSON.stringify(body));
}

interface ValidatorLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: Array<{ path?: string; message?: string }>;
}

/** Maps what express-openapi-validator and body-parser throw onto the documented codes. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = (err ?? {}) as ValidatorLikeError;
  const status = e.status ?? e.statusCode;
  if (e.type === 'entity.too.large' || status === 413)
    return new ApiError('payload_too_large', 'Request body exceeds the limit of 1048576 bytes');
  if (status === 415) return new ApiError('unsupported_media_type', unsupportedMediaTypeMessage(e.message));
  if (status === 405) return new ApiError('method_not_allowed', e.message ?? 'Method not allowed on this path');
  if (status === 404) return new ApiError('not_found', e.message ?? 'Not found');
  if (status === 400) {
    const details = (e.errors ?? []).map((d) => ({ path: validatorPath(d.path), message: d.message ?? 'is invalid' }));
    const summary = details.length
      ? details.map((d) => `${d.path} ${d.message}`).join('; ')
      : (e.message ?? 'Request is invalid');
    return new ApiError('validation_error', `Request is invalid: ${summary}`, details);
  }
  return new ApiError('internal_error', 'An unexpected error occurred; retry with exponential back-off');
}

/**
 * The validator names the media type it could not take, and writes `undefined` when the request
 * had no Content-Type at all ("unsupported media type undefined"): that case gets words of its own.
 */
function unsupportedMediaTypeMessage(message: string | undefined): string {
  if (message === undefined || /\bundefined$/.test(message) || /media type not specified/.test(message))
    return 'The request has no Content-Type header: send its body with the media type the operation takes (Content-Type: application/json for a JSON body)';
  return message;
}

/** The validator writes `.body.buyer.email`, `.query.limit`, `.headers.idempotency-key`; the contract says `/body/buyer/email`. */
function validatorPath(path: string | undefined): string {
  if (!path) return '/';
  return path.startsWith('/') ? path : `/${path.replace(/^\./, '').replace(/\./g, '/')}`;
}

export function errorHandler(
  log: (message: string, err: unknown) => void,
  faults: Faults = NO_FAULTS,
): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const apiError = toApiError(err);
    // Only the server's own failures: a client's refused message is no failure (isServerFailure).
    if (isServerFailure(apiError.status, apiError.code)) log('request failed', err);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, apiError, faults);
  };
}
