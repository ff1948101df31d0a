// One delivery attempt: a POST to the registered URL over a fresh connection to a vetted address.
// The literal address of the URL, or every address its name resolves to at this moment, must
// pass the partner's environment's rule (partner document, PUT /api/partner/webhooks, "URL
// rules"); redirects are not followed, so a receiver cannot send the request elsewhere.
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import type { Environment } from '../domain/environment.ts';
import { addressRefusal } from '../domain/webhook-url.ts';
import type { Resolve } from './resolve.ts';
import { DestinationRefused, vettedLookup } from './vetted-lookup.ts';

export interface Attempt {
  url: string;
  body: string;
  headers: OutgoingHttpHeaders;
  environment: Environment;
  resolve: Resolve;
  timeoutMs: number;
}

/** The receiver's status, or why there was none; `reason` is what the partner reads. */
export type AttemptOutcome = { status: number } | { reason: string };

export function postEvent(attempt: Attempt): Promise<AttemptOutcome> {
  const target = new URL(attempt.url);
  const options = urlToHttpOptions(target);
  const host = options.hostname ?? '';
  // Node connects to a literal address without a lookup, so it is judged here.
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, attempt.environment);
    if (refusal) return Promise.resolve({ reason: `refused before connecting: ${host} is ${refusal}` });
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((settle) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      settle(outcome);
    };
    const req = send(
      {
        ...options,
        method: 'POST',
        headers: { ...attempt.headers, 'content-length': Buffer.byteLength(attempt.body) },
        lookup: vettedLookup(attempt.resolve, attempt.environment),
        // A connection of its own: a pooled socket would skip the lookup, and one vetted under
        // sandbox rules must never carry a live delivery.
        agent: false,
        signal: AbortSignal.timeout(attempt.timeoutMs),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        finish(
          status >= 300 && status <= 399
            ? { reason: `the receiver answered HTTP ${status}; redirects are not followed` }
            : { status },
        );
        // The body is ignored: the connection is closed rather than read to its end.
        res.on('error', () => {});
        req.destroy();
      },
    );
    req.on('error', (err) => finish({ reason: failureReason(err, attempt.timeoutMs) }));
    req.end(attempt.body);
  });
}

function failureReason(err: Error, timeoutMs: number): string {
  if (err instanceof DestinationRefused) return err.message;
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const code = (err as NodeJS.ErrnoException).code;
  return `could not deliver: ${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`;
}
