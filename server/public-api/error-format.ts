// The public surface answers errors in the shape each operation documents: the `Error` body by
// default, RFC 6749 JSON at the token endpoint (`x-error-format: rfc6749`), RFC 7591 JSON at
// registration (`rfc7591`), and an HTML page wherever the documented error response offers
// `text/html` (sign-in, docs, hosted pages) unless `Accept` prefers JSON, and JSON-RPC error
// responses on the MCP endpoint (`jsonrpc`).
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { ApiContract } from '../contract/index.ts';
import { ApiError, sendError, toApiError } from '../http/errors.ts';
import type { Faults } from '../faults.ts';
import { sendJsonRpcError } from '../mcp/jsonrpc-error.ts';
import { escapeHtml, htmlPage } from '../public/html.ts';

export type ErrorFormat = 'rfc6749' | 'rfc7591' | 'oauth-authorize' | 'jsonrpc' | undefined;

export interface ErrorShapes {
  /** `x-error-format` of an operation. */
  formatOf(operationId: string): ErrorFormat;
  /** Whether the operation documents an HTML body for this error status. */
  offersHtml(operationId: string, status: number): boolean;
}

export function errorShapes(contract: ApiContract): ErrorShapes {
  const formats = new Map<string, ErrorFormat>();
  const html = new Map<string, Set<number>>();
  for (const op of contract.operations) {
    const format = op.object['x-error-format'];
    if (format === 'rfc6749' || format === 'rfc7591' || format === 'oauth-authorize' || format === 'jsonrpc')
      formats.set(op.operationId, format);
    const statuses = new Set<number>();
    for (const [status, response] of Object.entries(op.responses)) {
      const content = response.content;
      if (/^[45]\d\d$/.test(status) && content && typeof content === 'object' && 'text/html' in content)
        statuses.add(Number(status));
    }
    html.set(op.operationId, statuses);
  }
  return {
    formatOf: (id) => formats.get(id),
    offersHtml: (id, status) => html.get(id)?.has(status) ?? false,
  };
}

const prefersJson = (req: Request) => req.accepts(['text/html', 'application/json']) === 'application/json';

const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}';
const TITLES: Record<number, string> = {
  400: 'This link or form is not valid',
  404: 'Page not found',
  409: 'This cannot be done now',
  410: 'This link has expired',
  413: 'Too much data',
  415: 'Form not understood',
  429: 'Too many requests',
};

export function sendErrorPage(res: Response, err: ApiError): void {
  const title = TITLES[err.status] ?? 'Something went wrong';
  res.locals.errorCode = err.code;
  res
    .status(err.status)
    .type('html')
    .send(htmlPage(title, PAGE_STYLE, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(err.message)}</p>`));
}

/** OAuth error bodies only replace the pipeline's own client errors; 413, 429 and 5xx keep the Error shape. */
function oauthErrorCode(format: 'rfc6749' | 'rfc7591', err: ApiError, body: unknown): string | undefined {
  if (err.status >= 500 || err.status === 413 || err.status === 429) return undefined;
  if (format === 'rfc6749') {
    // RFC 6749 §5.2: a grant type the server does not offer has its own code.
    const grantType = body && typeof body === 'object' ? (body as Record<string, unknown>).grant_type : undefined;
    const offered = grantType === 'authorization_code' || grantType === 'refresh_token';
    return typeof grantType === 'string' && !offered ? 'unsupported_grant_type' : 'invalid_request';
  }
  return err.details?.some((d) => d.path.startsWith('/body/redirect_uris'))
    ? 'invalid_redirect_uri'
    : 'invalid_client_metadata';
}

export function publicErrorHandler(
  shapes: ErrorShapes,
  log: (message: string, err: unknown) => void,
  faults: Faults,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) log('request failed', err);
    if (res.headersSent) {
      res.end();
      return;
    }
    const operationId = res.locals.operation?.operationId;
    const format = operationId ? shapes.formatOf(operationId) : undefined;
    if (format === 'rfc6749' || format === 'rfc7591') {
      res.setHeader('Cache-Control', 'no-store');
      const error = oauthErrorCode(format, apiError, req.body);
      if (error) {
        res.locals.errorCode = error;
        res
          .status(400)
          .type('application/json')
          .send(JSON.stringify({ error, error_description: apiError.message }));
        return;
      }
    }
    if (format === 'jsonrpc') {
      res.locals.errorCode = apiError.code;
      sendJsonRpcError(res, apiError, { body: req.body, protocolVersion: req.get('mcp-protocol-version') }, faults);
      return;
    }
    if (operationId && shapes.offersHtml(operationId, apiError.status) && !prefersJson(req)) {
      for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
      sendErrorPage(res, apiError);
      return;
    }
    sendError(res, apiError, faults);
  };
}
