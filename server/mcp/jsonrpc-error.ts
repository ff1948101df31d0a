// Every error answer on /mcp is a JSON-RPC 2.0 error response (`x-error-format: jsonrpc` of the
// MCP operations, schema McpError): MCP clients read `error.code`, and the members of the
// `Error` body the endpoint answered before (`code`, `message`, `request_id`, `details`) stay
// beside it, since the public surface is additive-only.
import type { Response } from 'express';
import type { Faults } from '../faults.ts';
import { ApiError, errorBody, sendErrorBody, type ErrorCode } from '../http/errors.ts';
import { MALFORMED_JSON_DETAIL } from '../http/raw-body.ts';
import { ENVELOPE_VERSIONS, PROTOCOL_VERSIONS } from './protocol-versions.ts';

// JSON-RPC 2.0 §5.1, and the MCP revisions' own codes (2026-07-28).
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error: an HTTP-level refusal the status and `code` describe. */
export const SERVER_ERROR = -32000;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export interface JsonRpcError {
  code: number;
  data?: unknown;
}

/** An HTTP-level refusal whose JSON-RPC error is already known (the SDK's own, say). */
export class JsonRpcHttpError extends ApiError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly rpc: JsonRpcError,
    headers: Record<string, string> = {},
  ) {
    super(code, message, undefined, headers);
  }
}

const isMalformedJson = (err: ApiError) =>
  err.details?.some((d) => d.path === MALFORMED_JSON_DETAIL.path && d.message === MALFORMED_JSON_DETAIL.message) ??
  false;
const namesProtocolVersion = (err: ApiError) =>
  err.details?.some((d) => d.path.toLowerCase() === '/headers/mcp-protocol-version') ?? false;

export interface FailedRequest {
  /** The parsed body, when it was read. */
  body: unknown;
  /** The MCP-Protocol-Version header. */
  protocolVersion: string | undefined;
}

/** Whether the message carries the 2026-era per-request envelope (`_meta` naming its revision). */
function hasEnvelope(body: unknown): boolean {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null | undefined)?.params?._meta;
  return typeof meta === 'object' && meta !== null && 'io.modelcontextprotocol/protocolVersion' in meta;
}

/** The JSON-RPC error of a refusal raised by the pipeline (body parser, validator, token, rate limit). */
export function jsonRpcErrorOf(err: ApiError, request: FailedRequest): JsonRpcError {
  if (err instanceof JsonRpcHttpError) return err.rpc;
  if (err.status >= 500) return { code: INTERNAL_ERROR };
  if (err.code !== 'validation_error') return { code: SERVER_ERROR };
  if (isMalformedJson(err)) return { code: PARSE_ERROR };
  if (namesProtocolVersion(err)) {
    // A 2026-era client can switch only among the revisions server/discover lists; a 2025-era
    // one may initialize again with any served revision.
    const supported = hasEnvelope(request.body) ? ENVELOPE_VERSIONS : PROTOCOL_VERSIONS;
    return {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      data: { supported: [...supported], ...(request.protocolVersion ? { requested: request.protocolVersion } : {}) },
    };
  }
  return { code: INVALID_REQUEST };
}

/**
 * The id the error answers: the request's own, when one was read from a well-formed request
 * (JSON-RPC 2.0 §5: null when it could not be, after a parse error or an invalid request).
 */
export function answeredId(rpc: JsonRpcError, body: unknown): string | number | null {
  if (rpc.code === PARSE_ERROR || rpc.code === INVALID_REQUEST) return null;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

export function sendJsonRpcError(res: Response, err: ApiError, request: FailedRequest, faults: Faults): void {
  const rpc = jsonRpcErrorOf(err, request);
  const body = {
    jsonrpc: '2.0',
    id: answeredId(rpc, request.body),
    error: { code: rpc.code, message: err.message, ...(rpc.data !== undefined ? { data: rpc.data } : {}) },
    ...errorBody(res, err, faults),
  };
  sendErrorBody(res, err, body, faults);
}
