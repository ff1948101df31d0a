// The request observer: one log line and one set of metric observations per answered request,
// from what the answer says (status, the error code the error senders note in res.locals,
// rate-limit policy, Idempotent-Replayed), so the request pipeline itself needs no other hooks.
// Mounted first, right after the request id. It patches nothing on the response: replacing
// res.send per request made every request measurably slower (the bench's ops leg); it only
// listens, once, to 'close', with one listener function for every request (the arrival time
// rides on the response), so a request allocates no closure for it.
//
// A line carries: req_id, method, operation (operationId), route (the spec's path template,
// never the request's own path: paths can hold capability tokens, /brokerage/progress/{token}),
// status, ms, key_id (partner) or client_id (OAuth), code (the error code of a refusal) and
// replayed. Never a header, a query string or a body, so never a secret, token, signature,
// password or cookie. Health probes are logged at debug, 5xx at error (but for a 5xx refusal of the
// client's own message, such as 505: errors.ts isServerFailure), the rest at info.
import type { RequestHandler, Response } from 'express';
import { isServerFailure } from '../http/errors.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

export const PROBE_OPERATIONS: ReadonlySet<string> = new Set(['getHealth', 'getReadiness']);

/** The rate-limit class a 429 names in its `RateLimit-Policy` (`"search";q=60;w=60`). */
function policyClass(res: Response): string | undefined {
  const policy = res.getHeader('RateLimit-Policy');
  const match = typeof policy === 'string' ? /^"([^"]+)"/.exec(policy) : null;
  return match?.[1];
}

/** When the request arrived (performance.now(), ms), set by the observer on the response it watches. */
const ARRIVED = Symbol('arrived');
type Observed = Response & { [ARRIVED]: number };

export function requestObserver(deps: { logger: Logger; metrics?: Metrics }): RequestHandler {
  const { logger, metrics } = deps;
  // The 'close' listener: a response emits it once, after 'finish' when the answer was written,
  // alone when the client went away first (then writableFinished is false). Two once() listeners
  // and their closures per request showed in the ops leg's profile.
  function observe(res: Observed) {
    const req = res.req;
    const aborted = !res.writableFinished;
    const seconds = (performance.now() - res[ARRIVED]) / 1000;
    const operation = res.locals.operation;
    const operationId = operation?.operationId ?? 'unmatched';
    const status = aborted && !res.headersSent ? 499 : res.statusCode;
    const code = res.locals.errorCode;
    const replayed = res.getHeader('Idempotent-Replayed') === 'true';
    if (metrics) {
      metrics.request({ operationId, status, seconds });
      if (
        status === 429 &&
        code === 'rate_limited' &&
        res.getHeader('RateLimit-Remaining') === '0' &&
        operationId !== 'submitAuthorizeForm'
      ) {
        metrics.rateLimited(policyClass(res) ?? 'unknown');
      }
      if (code === 'replay_detected') metrics.replayRefused();
      if (replayed) metrics.idempotencyReplayed();
      if (status === 409 && code === 'conflict' && req.get('idempotency-key') !== undefined)
        metrics.idempotencyConflict();
    }
    const level = PROBE_OPERATIONS.has(operationId) ? 'debug' : isServerFailure(status, code) ? 'error' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line: Record<string, unknown> = {
      req_id: res.locals.requestId,
      method: req.method,
      operation: operationId,
      status,
      ms: Math.round(seconds * 1e4) / 10,
    };
    if (operation?.path) line.route = operation.path;
    const keyId = res.locals.credential?.keyId;
    if (keyId) line.key_id = keyId;
    const clientId = res.locals.viewer?.clientId;
    if (clientId) line.client_id = clientId;
    if (code) line.code = code;
    if (replayed) line.replayed = true;
    if (aborted) line.aborted = true;
    logger[level](line, 'request');
  }
  // Node calls a listener with the emitter as `this`: one function serves every response.
  function onClose(this: Observed) {
    observe(this);
  }
  return (_req, res, next) => {
    (res as Observed)[ARRIVED] = performance.now();
    res.on('close', onClose);
    next();
  };
}
