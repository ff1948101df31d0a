// npm run conformance -- receiver --url URL --secret S
// Checks a PARTNER's webhook endpoint the way the service delivers to it (seed "Events >
// Delivery", the partner document's `webhooks` and `x-webhook-delivery`): a
// correctly signed delivery is answered 2xx within 5 s, a bad signature is refused, a duplicate
// is tolerated (2xx again), and a body that arrives slowly is still answered within 5 s.
// Exit codes: 0 every check passed, 1 a check failed, 2 bad arguments.
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseArgs } from 'node:util';
import { HEADERS, webhookSignature } from '../client/protocol/index.ts';

const USAGE = `Usage: npm run conformance -- receiver --url URL --secret S

Sends signed test deliveries to a partner's webhook endpoint and checks that it answers a valid
one with 2xx within 5 s, refuses a bad signature, answers a duplicate with 2xx again and answers
within 5 s even when the body arrives slowly.

  --url URL      the webhook endpoint (http or https)
  --secret S     the webhook secret registered with PUT /api/partner/webhooks
`;

/** The contract's answer deadline (x-webhook-delivery timeout-seconds). */
const DEADLINE_MS = 5_000;

export interface ReceiverCheckResult {
  name: string;
  ok: boolean;
  ms: number;
  message?: string;
}

export interface ReceiverCheckOptions {
  url: string;
  secret: string;
  /** Answer deadline, ms (default 5000). */
  deadlineMs?: number;
  /** How long the slow delivery takes to send its body, ms (default 2000). */
  slowBodyMs?: number;
}

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

type Answer =
  { status: number; headers: IncomingHttpHeaders; body: string; ms: number } | { error: string; ms: number };

const base62 = (n: number) =>
  [...randomBytes(n)].map((b) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 62]).join('');

/** An `order.recorded` event as the contract describes it (webhooks["order.recorded"]). */
function syntheticEvent(): { id: string; type: string; body: Buffer } {
  const id = `evt_${base62(26)}`;
  const event = {
    id,
    type: 'order.recorded',
    created_at: `${new Date().toISOString().slice(0, 19)}Z`,
    partner_id: 'ptn_conformance',
    data: {
      order: {
        public_id: `ord_${base62(10)}`,
        domain: 'bestcoffeebeans.com',
        status: 'EXTERNALLY_PAID',
        sale_price_cents: 250000,
        currency: 'USD',
      },
    },
  };
  return { id, type: event.type, body: Buffer.from(JSON.stringify(event), 'utf8') };
}

function delivery(
  url: string,
  event: { id: string; type: string; body: Buffer },
  signature: string | undefined,
  attempt = 1,
): Sent {
  return {
    url,
    body: event.body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'domain-sales-conformance/receiver',
      ...(signature !== undefined ? { [HEADERS.webhookSignature]: signature } : {}),
      [HEADERS.eventId]: event.id,
      [HEADERS.eventType]: event.type,
      [HEADERS.deliveryAttempt]: String(attempt),
    },
  };
}

/** Sends one delivery; with `spreadMs` the body goes out in chunks over that long. Never throws. */
function send(sent: Sent, deadlineMs: number, spreadMs = 0): Promise<Answer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<Answer>((resolve) => {
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const t of chunkTimers) clearTimeout(t);
      resolve(answer);
    };
    const target = new URL(sent.url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target,
      { method: 'POST', headers: { ...sent.headers, 'content-length': String(sent.body.length) }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          finish({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8').slice(0, 2000),
            ms: elapsed(),
          }),
        );
        res.on('error', (err) => finish({ error: err.message, ms: elapsed() }));
      },
    );
    const chunkTimers: NodeJS.Timeout[] = [];
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${deadlineMs / 1000} s`, ms: elapsed() });
      req.destroy();
    }, deadlineMs);
    req.on('error', (err) => finish({ error: err.message, ms: elapsed() }));
    if (spreadMs <= 0) {
      req.end(sent.body);
      return;
    }
    const pieces = 8;
    const size = Math.ceil(sent.body.length / pieces);
    req.flushHeaders();
    for (let i = 0; i < pieces; i++) {
      chunkTimers.push(
        setTimeout(
          () => {
            if (settled) return;
            const piece = sent.body.subarray(i * size, (i + 1) * size);
            if (i === pieces - 1) req.end(piece);
            else req.write(piece);
          },
          Math.round((spreadMs * (i + 1)) / pieces),
        ),
      );
    }
  });
}

function describe(sent: Sent, answer: Answer): string {
  const headers = Object.entries(sent.headers)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const request = `> POST ${sent.url}\n${headers}\n\n  ${sent.body.toString('utf8')}`;
  if ('error' in answer) return `${request}\n< (${answer.error} after ${answer.ms} ms)`;
  return `${request}\n< ${answer.status} after ${answer.ms} ms\n\n  ${answer.body || '(empty body)'}`;
}

const is2xx = (a: Answer): a is Extract<Answer, { status: number }> =>
  !('error' in a) && a.status >= 200 && a.status < 300;

class Failed extends Error {}

/** Runs the four receiver checks; one result per check, in order. */
export async function runReceiverChecks(options: ReceiverCheckOptions): Promise<ReceiverCheckResult[]> {
  const { url, secret } = options;
  const deadline = options.deadlineMs ?? DEADLINE_MS;
  const results: ReceiverCheckResult[] = [];
  const check = async (name: string, body: () => Promise<void>) => {
    const started = performance.now();
    try {
      await body();
      results.push({ name, ok: true, ms: Math.round(performance.now() - started) });
    } catch (err) {
      const message =
        err instanceof Failed
          ? err.message
          : `crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
      results.push({ name, ok: false, ms: Math.round(performance.now() - started), message });
    }
  };
  const expectAccepted = (sent: Sent, answer: Answer, why: string) => {
    if (!is2xx(answer))
      throw new Failed(`${why}: expected a 2xx within ${deadline / 1000} s\n${describe(sent, answer)}`);
  };

  const valid = syntheticEvent();
  const validSent = delivery(url, valid, webhookSignature(secret, valid.body));
  await check('a correctly signed delivery is answered 2xx within 5 s', async () => {
    expectAccepted(validSent, await send(validSent, deadline), 'a correctly signed delivery');
  });

  await check('a delivery with a bad signature is refused (non-2xx)', async () => {
    const variants: Array<[string, (e: ReturnType<typeof syntheticEvent>) => Sent]> = [
      [
        'one hex digit of the signature changed',
        (e) =>
          delivery(
            url,
            e,
            webhookSignature(secret, e.body).replace(/.$/, (c) => (c === '0' ? '1' : '0')),
          ),
      ],
      ['signed with another secret', (e) => delivery(url, e, webhookSignature(`${secret}-not-it`, e.body))],
      [
        'the body changed after signing',
        (e) => ({
          ...delivery(url, e, webhookSignature(secret, e.body)),
          body: Buffer.from(e.body.toString('utf8').replace('250000', '1'), 'utf8'),
        }),
      ],
      ['no X-Service-Signature header', (e) => delivery(url, e, undefined)],
    ];
    for (const [what, build] of variants) {
      const sent = build(syntheticEvent());
      const answer = await send(sent, deadline);
      if ('error' in answer)
        throw new Failed(`${what}: expected a non-2xx answer, got none\n${describe(sent, answer)}`);
      if (is2xx(answer))
        throw new Failed(
          `${what}: the receiver accepted it with ${answer.status}; it must verify X-Service-Signature (HMAC-SHA256 of the raw body) before processing\n${describe(sent, answer)}`,
        );
    }
  });

  await check('a duplicate delivery (same event, attempt 2) is answered 2xx again', async () => {
    const again = delivery(url, valid, webhookSignature(secret, valid.body), 2);
    expectAccepted(again, await send(again, deadline), 'the same event delivered again (delivery is at least once)');
  });

  await check('a correctly signed delivery whose body arrives slowly (~2 s) is answered 2xx within 5 s', async () => {
    const slow = syntheticEvent();
    const sent = delivery(url, slow, webhookSignature(secret, slow.body));
    expectAccepted(
      sent,
      await send(sent, deadline, options.slowBodyMs ?? 2_000),
      'a delivery whose body was sent in 8 chunks over 2 s',
    );
  });
  return results;
}

/** The CLI mode; returns the exit code. */
export async function receiverMain(argv: string[]): Promise<number> {
  let values: { url?: string; secret?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: { url: { type: 'string' }, secret: { type: 'string' }, help: { type: 'boolean', default: false } },
    }));
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const problems: string[] = [];
  if (!values.url) problems.push('--url is required');
  else {
    try {
      const parsed = new URL(values.url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        problems.push(`--url must be http or https, not ${parsed.protocol}`);
    } catch {
      problems.push(`--url "${values.url}" is not a URL`);
    }
  }
  if (!values.secret) problems.push('--secret is required (the webhook secret the endpoint verifies with)');
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${USAGE}`);
    return 2;
  }
  console.log(`receiver conformance: ${values.url}`);
  const started = performance.now();
  const results = await runReceiverChecks({ url: values.url!, secret: values.secret! });
  for (const r of results) {
    console.log(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} ${r.ms} ms`);
    if (!r.ok && r.message)
      console.log(
        r.message
          .split('\n')
          .map((l) => `      ${l}`)
          .join('\n'),
      );
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(
    `\nreceiver: ${results.length - failed} passed, ${failed} failed (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  return failed > 0 ? 1 : 0;
}
