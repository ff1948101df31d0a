// One delivery attempt: a POST to the registered URL over a fresh connection to a vetted address.
// The literal address of the URL, or every address its name resolves to at this moment, must
// pass the partner's environment's rule (partner document, PUT /api/partner/webhooks, "URL
// rules"); redirects are not followed, so a receiver cannot send the request elsewhere. A failure
// comes back as its class (server/domain/delivery-failure.ts) with the detail for the log.
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { classOfNetworkError, type DeliveryFailure } from '../domain/delivery-failure.ts';
import type { Environment } from '../domain/environment.ts';
import { addressRefusal, type DestinationOptions } from '../domain/webhook-url.ts';
import type { Resolve } from './resolve.ts';
import { DestinationRefused, vettedLookup } from './vetted-lookup.ts';

export interface Attempt {
  url: string;
  body: string;
  headers: OutgoingHttpHeaders;
  environment: Environment;
  resolve: Resolve;
  timeoutMs: number;
  /** The deployment's part of the destination rule (SANDBOX_WEBHOOK_LOOPBACK). */
  destinations?: DestinationOptions;
}

/** The receiver's status (a 3xx is a failure: redirects are not followed), or why there was none. */
export type AttemptOutcome = { status: number } | { failure: DeliveryFailure };

export function postEvent(attempt: Attempt): Promise<AttemptOutcome> {
  const target = new URL(attempt.url);
  const options = urlToHttpOptions(target);
  const host = options.hostname ?? '';
  // Node connects to a literal address without a lookup, so it is judged here.
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, attempt.environment, attempt.destinations);
    if (refusal)
      return Promise.resolve({
        failure: { class: 'destination_refused', detail: `refused before connecting: ${host} is ${refusal}` },
      });
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
        lookup: vettedLookup(attempt.resolve, attempt.environment, attempt.destinations),
        // A connection of its own: a pooled socket would skip the lookup, and one vetted under
        // sandbox rules must never carry a live delivery.
        agent: false,
        signal: AbortSignal.timeout(attempt.timeoutMs),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        finish({ status });
        // The body is ignored: the connection is closed rather than read to its end.
        res.on('error', () => {});
        req.destroy();
      },
    );
    req.on('error', (err) => finish({ failure: failureOf(err, attempt.timeoutMs) }));
    req.end(attempt.body);
  });
}

function failureOf(err: Error, timeoutMs: number): DeliveryFailure {
  if (err instanceof DestinationRefused) return { class: 'destination_refused', detail: err.message };
  if (err.name === 'AbortError' || err.name === 'TimeoutError')
    return { class: 'timeout', detail: `no answer within ${timeoutMs / 1000} s` };
  const code = (err as NodeJS.ErrnoException).code;
  const detail = `${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`;
  return { class: classOfNetworkError(code), detail };
}
