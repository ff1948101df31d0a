// POST /mcp: hands one JSON-RPC message to the SDK and writes its answer back through Express,
// so the pipeline's headers (request id, rate limit) stay on the response and the SDK's own
// HTTP-level rejections keep their JSON-RPC error (the operation's errors are JSON-RPC error
// responses, server/mcp/jsonrpc-error.ts). The SDK routes each request to its era: 2026-07-28
// requests carry the per-request `_meta` envelope, 2025-era ones (the `initialize` handshake and
// everything after it) do not.
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { toWebRequest } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import { ApiError, type ErrorCode } from '../http/errors.ts';
import type { PublicDeps } from '../public-api/context.ts';
import type { PublicReads } from '../public-api/reads-service.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, JsonRpcHttpError, SERVER_ERROR } from './jsonrpc-error.ts';
import { originAllowed } from './origin.ts';
import { buildMcpServer } from './server.ts';
import type { ToolContext } from './tools.ts';

export interface McpEndpointOptions {
  /** Browser origins allowed besides the deployment's own and loopback ones. */
  allowedOrigins?: readonly string[];
}

type ResponseShape = 'json' | 'sse';

/** The media ranges of an `Accept`, lower-cased, without those of weight 0 (RFC 9110 §12.5.1). */
function acceptedRanges(accept: string): string[] {
  return accept
    .split(',')
    .map((part) => {
      const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return q !== undefined && Number(q.slice(2)) === 0 ? '' : range;
    })
    .filter((range) => range !== '');
}

/**
 * JSON whenever the client accepts it (or says nothing); one SSE event only for a client that
 * accepts `text/event-stream` and no JSON; undefined when `Accept` takes neither, which the MCP
 * Streamable HTTP transport answers 406.
 */
export function responseShape(accept: string | undefined): ResponseShape | undefined {
  if (accept === undefined || accept.trim() === '') return 'json';
  const types = acceptedRanges(accept);
  if (types.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*')) return 'json';
  return types.some((t) => t === 'text/event-stream' || t === 'text/*') ? 'sse' : undefined;
}

/** The tool context travels to the per-request server factory as the SDK's pass-through auth info. */
const CONTEXT_KEY = 'domainSales/toolContext';

function authInfoFor(ctx: ToolContext, token: string | undefined): AuthInfo {
  return {
    token: token ?? '',
    clientId: ctx.viewer?.clientId ?? '',
    scopes: ctx.viewer?.scopes ?? [],
    extra: { [CONTEXT_KEY]: ctx },
  };
}

function contextOf(authInfo: AuthInfo | undefined): ToolContext {
  const ctx = authInfo?.extra?.[CONTEXT_KEY] as ToolContext | undefined;
  if (!ctx) throw new Error('MCP request reached the server factory without its tool context');
  return ctx;
}

/** The contract's `code` of an HTTP status the SDK refused a message with. */
function codeOfStatus(status: number): ErrorCode {
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 405) return 'method_not_allowed';
  if (status === 406) return 'not_acceptable';
  // 2026-07-28: a method the revision removed or the server does not offer is 404 with -32601.
  if (status === 404) return 'not_found';
  if (status >= 500) return 'internal_error';
  return 'validation_error';
}

/** The SDK's HTTP-level rejections (a JSON-RPC error with a 4xx/5xx status), its JSON-RPC error kept. */
async function rejection(response: Response): Promise<ApiError> {
  let message = `MCP request refused (HTTP ${response.status})`;
  let rpc: { code: number; data?: unknown } = { code: response.status >= 500 ? INTERNAL_ERROR : SERVER_ERROR };
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (typeof body.error?.message === 'string' && body.error.message) message = body.error.message;
    if (typeof body.error?.code === 'number' && Number.isInteger(body.error.code))
      rpc = { code: body.error.code, ...(body.error.data !== undefined ? { data: body.error.data } : {}) };
    // A client probing with a revision we do not serve needs the ones we do, to pick again.
    const supported = (body.error?.data as { supported?: unknown } | undefined)?.supported;
    if (Array.isArray(supported) && supported.length) message += ` (supported: ${supported.join(', ')})`;
  } catch {
    // Not JSON: the status alone has to do.
  }
  const code = codeOfStatus(response.status);
  return new JsonRpcHttpError(code, message, rpc, code === 'method_not_allowed' ? { Allow: 'POST' } : {});
}

async function send(response: Response, res: ExpressResponse, done: () => void): Promise<void> {
  if (response.status >= 400) {
    done();
    throw await rejection(response);
  }
  if (response.status === 202 || response.body === null) {
    done();
    res.status(response.status).end();
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) {
    const body: unknown = await response.json();
    done();
    res.status(response.status).json(body);
    return;
  }
  // One SSE event and the end of the stream; headers first, then the bytes as they come.
  res.status(response.status);
  for (const name of ['content-type', 'cache-control', 'x-accel-buffering']) {
    const value = response.headers.get(name);
    if (value) res.setHeader(name, value);
  }
  const stream = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  stream.on('close', done);
  stream.pipe(res);
}

export function mcpPostHandler(deps: PublicDeps, reads: PublicReads, options: McpEndpointOptions = {}): RequestHandler {
  const factory = ({ authInfo }: { authInfo?: AuthInfo }) => buildMcpServer(contextOf(authInfo));
  const onerror = (err: Error) => deps.log('MCP request failed', err);
  const modern: Record<ResponseShape, McpHttpHandler> = {
    // 'auto' answers JSON: these tools emit nothing before their result, so nothing upgrades to SSE.
    json: createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', onerror }),
    sse: createMcpHandler(factory, { legacy: 'reject', responseMode: 'sse', onerror }),
  };

  return async (req: ExpressRequest, res: ExpressResponse) => {
    const origin = req.get('origin');
    if (origin !== undefined && !originAllowed(origin, deps.baseUrl(req), options.allowedOrigins ?? [])) {
      throw new ApiError('forbidden', `Origin "${origin}" is not allowed`);
    }
    // The document's JsonRpcMessage refuses these already; the SDK would take a batch, which no
    // served revision after 2025-03-26 has, so the rule is kept here too.
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
      throw new JsonRpcHttpError(
        'validation_error',
        'The body must be one JSON-RPC request or notification; batches (a JSON array) are not supported',
        { code: INVALID_REQUEST },
      );
    }
    const accept = req.get('accept');
    const shape = responseShape(accept);
    if (shape === undefined)
      throw new JsonRpcHttpError(
        'not_acceptable',
        `Accept ${JSON.stringify(accept?.slice(0, 100))} takes neither application/json nor text/event-stream; accept one of them`,
        { code: SERVER_ERROR },
      );
    const sentArguments = toolArgumentsOf(req.body as Record<string, unknown>);
    const ctx: ToolContext = {
      reads,
      viewer: res.locals.viewer,
      requestId:
        typeof res.getHeader('x-request-id') === 'string' ? (res.getHeader('x-request-id') as string) : undefined,
      log: deps.log,
      ...(sentArguments !== undefined ? { sentArguments } : {}),
    };
    const authInfo = authInfoFor(ctx, res.locals.viewer ? res.locals.bearerToken : undefined);
    const request = await sdkRequest(req);
    if (await isLegacyRequest(request, req.body)) {
      // The 2025 era, stateless: a fresh server and transport for this one message.
      const server = factory({ authInfo });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: shape === 'json',
      });
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: req.body, authInfo });
      await send(response, res, () => void server.close().catch(onerror));
      return;
    }
    await send(await modern[shape].fetch(request, { parsedBody: req.body, authInfo }), res, () => {});
  };
}

/**
 * `params.arguments` of a `tools/call` message as parsed from the body (own members only, so a
 * `"__proto__"` member is still a member), for the tool to check (ToolContext.sentArguments).
 * One message per request: these are the arguments of the call the SDK routes.
 */
function toolArgumentsOf(message: Record<string, unknown>): unknown {
  if (message.method !== 'tools/call') return undefined;
  const params = message.params;
  if (typeof params !== 'object' || params === null || !Object.hasOwn(params, 'arguments')) return undefined;
  return (params as Record<string, unknown>).arguments;
}

/**
 * The web Request the SDK reads. The answer's shape was chosen from the client's own `Accept`
 * already, so the SDK is told the client takes both (its 2025 transport refuses anything
 * less), and a session id is dropped: none is ever issued, one sent is ignored.
 */
async function sdkRequest(req: ExpressRequest): Promise<Request> {
  const original = await toWebRequest(req, req.body);
  const headers = new Headers(original.headers);
  headers.set('accept', 'application/json, text/event-stream');
  headers.delete('mcp-session-id');
  // The body is re-serialized from the parsed one, so the client's length no longer applies.
  headers.delete('content-length');
  return new Request(original.url, { method: original.method, headers, body: JSON.stringify(req.body) });
}

const NO_STREAM = 'This MCP server is stateless; it opens no SSE stream and keeps no session. Use POST /mcp';

/** Whether `Accept` lists `text/event-stream` (what an MCP client's GET for the stream sends). */
export function acceptsEventStream(accept: string | undefined): boolean {
  return (accept ?? '')
    .split(',')
    .some((part) => (part.split(';')[0] ?? '').trim().toLowerCase() === 'text/event-stream');
}

/**
 * GET /mcp: an MCP client asking for the server-to-client stream gets 405 (none is offered: the
 * transport's "no stream" answer); anything else, a browser say, is sent to the MCP guide.
 */
export function getStream(guidePath: string): RequestHandler {
  return (req, res) => {
    if (acceptsEventStream(req.get('accept')))
      throw new ApiError('method_not_allowed', NO_STREAM, undefined, { Allow: 'POST' });
    res.redirect(303, guidePath);
  };
}

/**
 * DELETE /mcp: naming a session (`Mcp-Session-Id`) it asks to end one; none is kept, so there
 * is nothing left to do (204). Without one it is no session termination at all (405).
 */
export function deleteSession(): RequestHandler {
  return (req, res) => {
    if (!req.get('mcp-session-id')) throw new ApiError('method_not_allowed', NO_STREAM, undefined, { Allow: 'POST' });
    res.status(204).end();
  };
}
