// Optional Idempotency-Key on the public POSTs (the IdempotencyKey parameter of the public
// document): scoped per client (the token's grant, else the IP), same key and body replays the
// stored answer byte for byte, another body or a request still executing is 409 `conflict`.
// Runs after validation, so only answers of an executing operation are stored; 5xx are not.
import type { RequestHandler, Response } from 'express';
import type { Clock } from '../clock.ts';
import { decideForExistingKey, requestFingerprint } from '../domain/idempotency.ts';
import { replayOrThrow, sendReplay } from '../http/idempotency-answer.ts';
import type { IdempotencyRepository } from '../store/idempotency.ts';

/** Headers replayed with a stored answer (the rate-limit and request-id headers are the new request's own). */
const REPLAYED_HEADERS = ['content-type', 'www-authenticate', 'cache-control'];

export function publicIdempotency(
  deps: { idempotency: IdempotencyRepository; clock: Clock },
  operationIds: ReadonlySet<string>,
): RequestHandler {
  return async (req, res, next) => {
    const operation = res.locals.operation;
    const key = req.get('idempotency-key');
    if (!operation || key === undefined || !operationIds.has(operation.operationId)) return next();
    try {
      const scope = `public:${res.locals.viewer ? `grant:${res.locals.viewer.grantId}` : `ip:${req.socket.remoteAddress ?? 'unknown'}`}`;
      // The method and path are part of the fingerprint: one key names one logical call, not one body.
      const print = requestFingerprint(operation.method, req.originalUrl, req.rawBody);
      const now = deps.clock.now();
      const claim = await deps.idempotency.claim(scope, key, print, now);
      if (!claim.claimed) {
        const stored = replayOrThrow(decideForExistingKey(claim.existing, print, key, now));
        sendReplay(
          res,
          stored.statusCode,
          stored.body,
          JSON.parse(claim.existing.headers ?? '{}') as Record<string, string>,
        );
        return;
      }
      recordAnswer(res, (status, body, headers) =>
        status < 500
          ? deps.idempotency.complete(scope, key, status, body, headers)
          : deps.idempotency.release(scope, key),
      );
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * Stores what is sent before it goes out, so a retry that arrives the moment the first answer
 * does already finds it (res.json ends in res.send). A connection closed before any answer
 * releases the claim.
 */
function recordAnswer(
  res: Response,
  store: (status: number, body: string, headers: Record<string, string>) => Promise<unknown>,
): void {
  const send = res.send.bind(res);
  let recorded = false;
  res.send = (chunk?: unknown) => {
    if (recorded) return send(chunk);
    recorded = true;
    const body = Buffer.isBuffer(chunk)
      ? chunk.toString('utf8')
      : typeof chunk === 'string'
        ? chunk
        : JSON.stringify(chunk);
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = res.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    if (typeof chunk === 'object' && chunk !== null && !Buffer.isBuffer(chunk) && !headers['content-type'])
      headers['content-type'] = 'application/json; charset=utf-8';
    void store(res.statusCode, body, headers)
      .catch(() => undefined)
      .finally(() => send(chunk));
    return res;
  };
  res.on('close', () => {
    if (!recorded) void store(500, '', {}).catch(() => undefined);
  });
}
