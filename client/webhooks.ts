// Receiving the service's webhooks: verify the signature over the raw body, answer 200 at once,
// hand each event to the application once (deliveries are at least once, so duplicates arrive).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyWebhookSignature } from './protocol/index.ts';

export { verifyWebhookSignature };

/** The delivery envelope (seed, Events > Delivery). */
export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  partner_id: string;
  data: Record<string, unknown>;
}

/** Verifies `X-Service-Signature` over the raw body bytes and parses the envelope; null when not authentic. */
export function verifyWebhook(
  rawBody: Uint8Array | string,
  signatureHeader: string | undefined | null,
  secret: string,
): WebhookEvent | null {
  if (!signatureHeader || !verifyWebhookSignature(rawBody, signatureHeader, secret)) return null;
  try {
    const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
    const event = JSON.parse(text) as Partial<WebhookEvent>;
    return typeof event.id === 'string' && typeof event.type === 'string' ? (event as WebhookEvent) : null;
  } catch {
    return null;
  }
}

/** Where seen event ids are kept. The default remembers the last 10,000 in memory. */
export interface SeenEvents {
  has(id: string): boolean | Promise<boolean>;
  add(id: string): void | Promise<void>;
  delete(id: string): void | Promise<void>;
}

export function memorySeenEvents(capacity = 10_000): SeenEvents {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add: (id) => {
      ids.add(id);
      // A Set iterates in insertion order, so the first entry is the oldest.
      if (ids.size > capacity) ids.delete(ids.values().next().value as string);
    },
    delete: (id) => void ids.delete(id),
  };
}

export interface WebhookHandlerOptions {
  secret: string;
  /** Runs after the 200 has been sent. Keep it short or hand the work to a queue. */
  onEvent: (event: WebhookEvent) => unknown;
  /** Called when onEvent throws; the event id is forgotten so a redelivery is processed again. */
  onError?: (error: unknown, event: WebhookEvent) => void;
  seen?: SeenEvents;
  /** Largest body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
}

type BodyCarrier = IncomingMessage & { body?: unknown };

/**
 * A Node/Express request handler for the webhook endpoint. Mount it without a JSON body parser
 * in front (or with `express.raw({ type: 'application/json' })`): the signature covers the raw bytes.
 * Answers 401 to a bad signature, 200 to a duplicate without calling onEvent, and 200 at once
 * to a new event, then calls onEvent.
 */
export function webhookHandler(options: WebhookHandlerOptions) {
  const seen = options.seen ?? memorySeenEvents();
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return async (req: BodyCarrier, res: ServerResponse): Promise<void> => {
    const raw = Buffer.isBuffer(req.body) ? req.body : await readBody(req, limit);
    if (raw === 'too-large' || raw.length > limit) return answer(res, 413, { error: 'body too large' });
    const header = req.headers['x-service-signature'];
    const event = verifyWebhook(raw, Array.isArray(header) ? header[0] : header, options.secret);
    if (!event) return answer(res, 401, { error: 'invalid signature' });
    if (await seen.has(event.id)) return answer(res, 200, { received: true, duplicate: true });
    await seen.add(event.id);
    answer(res, 200, { received: true });
    try {
      await options.onEvent(event);
    } catch (err) {
      await seen.delete(event.id);
      options.onError?.(err, event);
    }
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

/** Reads the body; past the limit it keeps draining (so an answer can still be sent) but stores nothing. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
