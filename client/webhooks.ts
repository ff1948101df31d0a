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
  /**
   * Called when a delivery could not be received: the body could not be read (the sender went
   * away) or the seen-events store failed. The sender was answered 400 or 503 where it could still
   * hear it, so it delivers the event again later; nothing is handed to onEvent.
   */
  onReceiveError?: (error: unknown) => void;
  seen?: SeenEvents;
  /** Largest body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
}

type BodyCarrier = IncomingMessage & { body?: unknown };

/** A failure while receiving, with the status the sender gets (it retries on anything but 2xx). */
class ReceiveError extends Error {
  constructor(
    readonly status: 400 | 503,
    readonly answer: string,
    options: { cause: unknown },
  ) {
    super(answer, options);
  }
}

/**
 * A Node/Express request handler for the webhook endpoint. Mount it without a JSON body parser
 * in front (or with `express.raw({ type: 'application/json' })`): the signature covers the raw bytes.
 * Answers 401 to a bad signature, 200 to a duplicate without calling onEvent, and 200 at once
 * to a new event, then calls onEvent. It never throws nor returns a rejected promise, so it can be
 * given to `http.createServer` as it is: a failure to receive is answered (400 unreadable body,
 * 503 seen-events store down) and reported to onReceiveError.
 */
export function webhookHandler(options: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const seen = options.seen ?? memorySeenEvents();
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const receive = async (req: BodyCarrier, res: ServerResponse): Promise<WebhookEvent | undefined> => {
    const raw = Buffer.isBuffer(req.body)
      ? req.body
      : await readBody(req, limit).catch((cause: unknown) => {
          throw new ReceiveError(400, 'body could not be read', { cause });
        });
    if (raw === 'too-large' || raw.length > limit) return void answer(res, 413, { error: 'body too large' });
    const header = req.headers['x-service-signature'];
    const event = verifyWebhook(raw, Array.isArray(header) ? header[0] : header, options.secret);
    if (!event) return void answer(res, 401, { error: 'invalid signature' });
    try {
      if (await seen.has(event.id)) return void answer(res, 200, { received: true, duplicate: true });
      await seen.add(event.id);
    } catch (cause) {
      throw new ReceiveError(503, 'seen-events store unavailable', { cause });
    }
    answer(res, 200, { received: true });
    return event;
  };
  const hand = async (event: WebhookEvent): Promise<void> => {
    try {
      await options.onEvent(event);
    } catch (err) {
      // Forget it so the redelivery is processed; if the store fails here too, say both.
      await Promise.resolve()
        .then(() => seen.delete(event.id))
        .catch((cause: unknown) => options.onReceiveError?.(cause));
      try {
        options.onError?.(err, event);
      } catch {
        // The application's reporter failed: nothing is left to tell.
      }
    }
  };
  return (req, res) => {
    receive(req, res)
      .then((event) => (event ? hand(event) : undefined))
      .catch((err: unknown) => {
        const failure = err instanceof ReceiveError ? err : new ReceiveError(503, 'receiving failed', { cause: err });
        if (!res.headersSent && res.writable) answer(res, failure.status, { error: failure.answer });
        try {
          options.onReceiveError?.(failure.cause);
        } catch {
          // The application's reporter failed: nothing is left to tell.
        }
      });
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
