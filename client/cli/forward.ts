// One forwarded delivery, made as the deployment's dispatcher makes it (x-webhook-delivery of the
// partner document): POST, the JSON body, X-Service-Signature (lowercase hex HMAC-SHA256 of the
// body with the webhook secret, no v1= prefix), X-Service-Event-Id, X-Service-Event-Type and
// X-Service-Delivery-Attempt; success is any 2xx within the time limit; redirects are not followed.
import { HEADERS, webhookSignature } from '../protocol/index.ts';
import type { WebhookEvent } from '../webhooks.ts';

export interface ForwardInput {
  url: string;
  event: WebhookEvent;
  secret: string;
  attempt: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export type ForwardOutcome =
  | { accepted: boolean; status: number; statusText: string; answer: string; ms: number }
  | { accepted: false; error: string; ms: number };

/** The headers of a delivery of `body` (pure). */
export function deliveryHeaders(
  body: string,
  event: WebhookEvent,
  secret: string,
  attempt: number,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'domain-sales-cli-listen/1',
    [HEADERS.webhookSignature]: webhookSignature(secret, body),
    [HEADERS.eventId]: event.id,
    [HEADERS.eventType]: event.type,
    [HEADERS.deliveryAttempt]: String(attempt),
  };
}

export async function forwardEvent(input: ForwardInput): Promise<ForwardOutcome> {
  const body = JSON.stringify(input.event);
  const started = Date.now();
  try {
    const res = await fetch(input.url, {
      method: 'POST',
      headers: deliveryHeaders(body, input.event, input.secret, input.attempt),
      body,
      redirect: 'manual',
      signal: AbortSignal.any([input.signal, AbortSignal.timeout(input.timeoutMs)]),
    });
    const answer = (await res.text()).slice(0, 200);
    return {
      accepted: res.status >= 200 && res.status < 300,
      status: res.status,
      statusText: res.statusText,
      answer,
      ms: Date.now() - started,
    };
  } catch (err) {
    const ms = Date.now() - started;
    if (input.signal.aborted) return { accepted: false, error: 'stopped', ms };
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const reason =
      e.name === 'TimeoutError'
        ? `no answer within ${input.timeoutMs / 1000} s`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { accepted: false, error: reason, ms };
  }
}
