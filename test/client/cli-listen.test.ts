// `domain-sales listen` as a child process against the in-process reference server: it follows
// GET /events with a minted credential and forwards to a local receiver that checks every
// delivery with client/webhooks.ts verifyWebhook (and answers what the test decides). What
// counts as a delivered kind and which headers a delivery carries is read from the bundled
// contract, as the server tests read it.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookEvent } from '../../client/webhooks.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { DELIVERED_KINDS, partnerDoc } from '../server/support/contract.ts';
import { createOrder, domainSource, eventually, signedRequest, type Credential } from '../server/support/http.ts';
import { runCli, runningCli, type RunningCli } from './support/cli.ts';

const SECRET = 'whsec_listen_0123456789abcdef';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const DELIVERY_HEADERS = (partnerDoc['x-webhook-delivery'] as { headers: string[] }).headers.map((h) =>
  h.toLowerCase(),
);

interface Received {
  event: WebhookEvent;
  raw: Buffer;
  headers: IncomingHttpHeaders;
  answered: number;
}

/** A receiver that verifies every delivery with verifyWebhook: 401 when it does not verify. */
async function startVerifyingReceiver(secret = SECRET) {
  const received: Received[] = [];
  let rejected = 0;
  let decide: (event: WebhookEvent, n: number) => number = () => 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = req.headers['x-service-signature'];
      const event = verifyWebhook(raw, Array.isArray(header) ? header[0] : header, secret);
      if (!event) {
        rejected++;
        res.writeHead(401).end('invalid signature');
        return;
      }
      const answered = decide(event, received.length);
      received.push({ event, raw, headers: req.headers, answered });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    rejected: () => rejected,
    respond(fn: (event: WebhookEvent, n: number) => number) {
      decide = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let h: Harness;
let dir: string;
const take = domainSource();
const running: RunningCli[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  h = await startHarness({ inventorySize: 500 });
  dir = mkdtempSync(join(tmpdir(), 'cli-listen-'));
});
afterEach(async () => {
  for (const cli of running.splice(0)) cli.kill();
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function partner() {
  const cred = await h.mint({ rate_limits: HIGH });
  return {
    cred,
    env: {
      SERVICE_KEY_ID: cred.key_id,
      SERVICE_SECRET: cred.secret,
      SERVICE_BASE_URL: h.baseUrl,
      WEBHOOK_SECRET: SECRET,
    },
  };
}

async function receiver(secret = SECRET) {
  const r = await startVerifyingReceiver(secret);
  closers.push(r.close);
  return r;
}

function listen(args: string[], env: Record<string, string>): RunningCli {
  const cli = runningCli(['listen', '--interval', '0.2', '--backoff-ms', '100', ...args], env);
  running.push(cli);
  return cli;
}

/** The partner's events of the delivered kinds, from GET /events signed by the test support. */
async function deliveredEvents(cred: Credential): Promise<Array<{ id: string; type: string }>> {
  const r = await signedRequest(h, cred, { path: '/api/partner/v1/events', query: 'limit=1000' });
  expect(r.status, r.text).toBe(200);
  return (r.body.events as Array<{ id: string; type: string }>).filter((e) => DELIVERED_KINDS.includes(e.type));
}

/** The cursor file's after_id; undefined while the file does not exist. */
function cursorIn(file: string): string | null | undefined {
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { after_id: string | null }).after_id;
}
const order = async (cred: Credential) => createOrder(h, cred, await take(h, cred)) as Promise<{ public_id: string }>;

describe('domain-sales listen', () => {
  it('forwards an order event as a delivery verifyWebhook accepts, stops on Ctrl-C, and after a restart does not forward it again', async () => {
    const { cred, env } = await partner();
    const rx = await receiver();
    const cursorFile = join(dir, `${randomUUID()}.json`);
    const first = await order(cred);
    const [recorded] = await deliveredEvents(cred);
    expect(recorded?.type).toBe('order.recorded');

    const cli = listen(['--forward-to', rx.url, '--cursor-file', cursorFile], env);
    await eventually(() => (rx.received.length > 0 ? true : undefined), 15_000, 'the first forward');
    await cli.waitForOutput(new RegExp(`${recorded!.id} order.recorded attempt 1 -> 200 OK .*accepted`));
    const stop = await cli.interrupt();
    expect(stop.code).toBe(0);
    expect(stop.stderr).toMatch(new RegExp(`Stopped. The next run resumes after ${recorded!.id}`));
    expect(rx.rejected()).toBe(0);
    expect(rx.received.map((r) => r.event.id)).toEqual([recorded!.id]);
    const got = rx.received[0]!;
    expect((got.event.data as { order: { public_id: string } }).order.public_id).toBe(first.public_id);
    for (const name of DELIVERY_HEADERS) expect(got.headers[name], name).toBeTruthy();
    expect(got.headers['x-service-event-id']).toBe(recorded!.id);
    expect(got.headers['x-service-event-type']).toBe('order.recorded');
    expect(got.headers['x-service-delivery-attempt']).toBe('1');
    expect(cursorIn(cursorFile)).toBe(recorded!.id);

    // Restarted on the same cursor file: only what is new arrives.
    const again = listen(['--forward-to', rx.url, '--cursor-file', cursorFile], env);
    await again.waitForOutput(new RegExp(`Resuming after ${recorded!.id}`));
    await order(cred);
    const events = await deliveredEvents(cred);
    expect(events).toHaveLength(2);
    await eventually(() => (rx.received.length >= 2 ? true : undefined), 15_000, 'the second forward');
    await new Promise((r) => setTimeout(r, 600)); // a few more polls: nothing else may arrive
    expect((await again.interrupt()).code).toBe(0);
    expect(rx.received.map((r) => r.event.id)).toEqual(events.map((e) => e.id));
    expect(cursorIn(cursorFile)).toBe(events[1]!.id);
  });

  it("sends the same body, signature and headers as the deployment's own delivery of the event", async () => {
    const { cred, env } = await partner();
    const rx = await receiver();
    const registered = await signedRequest(h, cred, {
      method: 'PUT',
      path: '/api/partner/webhooks',
      body: { url: rx.url, secret: SECRET },
    });
    expect(registered.status, registered.text).toBe(200);
    await order(cred);
    const real = await eventually(
      () => rx.received.find((r) => r.headers['user-agent'] !== 'domain-sales-cli-listen/1'),
      10_000,
      'the real delivery',
    );

    const cli = listen(['--forward-to', rx.url, '--cursor-file', join(dir, `${randomUUID()}.json`)], env);
    const forwarded = await eventually(
      () => rx.received.find((r) => r.headers['user-agent'] === 'domain-sales-cli-listen/1'),
      15_000,
      'the forward',
    );
    // Stopped as a supervisor stops it: SIGTERM, the same clean stop as Ctrl-C.
    const stop = await cli.interrupt('SIGTERM');
    expect(stop.code).toBe(0);
    expect(stop.stderr).toMatch(/Stopped\. The next run resumes after /);
    expect(forwarded.raw.equals(real.raw)).toBe(true);
    const names = (r: Received) =>
      Object.keys(r.headers)
        .filter((n) => n.startsWith('x-service-') || n === 'content-type')
        .sort();
    expect(names(forwarded)).toEqual(names(real));
    for (const name of [
      'x-service-signature',
      'x-service-event-id',
      'x-service-event-type',
      'x-service-delivery-attempt',
      'content-type',
    ]) {
      expect(forwarded.headers[name], name).toBe(real.headers[name]);
    }
  });

  it('retries a refused forward with back-off, never moves the cursor past it, and still owes it after a restart', async () => {
    const { cred, env } = await partner();
    const rx = await receiver();
    rx.respond(() => 503);
    const cursorFile = join(dir, `${randomUUID()}.json`);
    await order(cred);
    const [recorded] = await deliveredEvents(cred);

    const cli = listen(['--forward-to', rx.url, '--cursor-file', cursorFile], env);
    await eventually(() => (rx.received.length >= 3 ? true : undefined), 15_000, 'three attempts');
    const stop = await cli.interrupt();
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(
      new RegExp(`${recorded!.id} order.recorded attempt 1 -> 503 .*NOT accepted; retrying in`),
    );
    expect(rx.received.slice(0, 3).map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(rx.received.every((r) => r.event.id === recorded!.id)).toBe(true);
    expect(stop.stderr).toMatch(/The next run resumes after nothing/);
    // The cursor never passed the refused event (the file holds no event, or was never written).
    expect(cursorIn(cursorFile) ?? null).toBeNull();

    const before = rx.received.length;
    rx.respond(() => 200);
    const again = listen(['--forward-to', rx.url, '--cursor-file', cursorFile], env);
    await eventually(
      () => (rx.received.slice(before).some((r) => r.answered === 200) ? true : undefined),
      15_000,
      'the accepted forward',
    );
    await again.interrupt();
    expect(rx.received.slice(before).map((r) => [r.event.id, r.answered])).toEqual([[recorded!.id, 200]]);
    expect(cursorIn(cursorFile)).toBe(recorded!.id);
  });

  it('a receiver holding another secret refuses every forward (the signature is real)', async () => {
    const { cred, env } = await partner();
    const rx = await receiver('whsec_some_other_secret_000000');
    await order(cred);
    const cli = listen(['--forward-to', rx.url, '--cursor-file', join(dir, `${randomUUID()}.json`)], env);
    await cli.waitForOutput(/attempt 2 -> 401/);
    await cli.interrupt();
    expect(rx.received).toHaveLength(0);
    expect(rx.rejected()).toBeGreaterThanOrEqual(2);
  });

  it('--events forwards only the kinds named and moves past the others', async () => {
    const { cred, env } = await partner();
    const rx = await receiver();
    const cursorFile = join(dir, `${randomUUID()}.json`);
    await order(cred);
    const [recorded] = await deliveredEvents(cred);
    const cli = listen(
      ['--forward-to', rx.url, '--cursor-file', cursorFile, '--events', 'order.settled,order.refunded'],
      env,
    );
    await cli.waitForOutput(new RegExp(`skip ${recorded!.id} order.recorded`));
    await eventually(
      () => (cursorIn(cursorFile) === recorded!.id ? true : undefined),
      5000,
      'the cursor past the skipped event',
    );
    await cli.interrupt();
    expect(rx.received).toHaveLength(0);
  });

  it('answers usage mistakes with one line on stderr and exit 2', async () => {
    const { env } = await partner();
    const foreign = join(dir, 'foreign.json');
    writeFileSync(foreign, JSON.stringify({ base_url: h.baseUrl, key_id: 'pk_test_someone_else', after_id: null }));
    const { WEBHOOK_SECRET: _unused, ...noSecret } = env;
    const cases = [
      [['listen'], env, /give --forward-to URL/],
      [['listen', '--forward-to', 'localhost:3000'], env, /--forward-to must be an http/],
      [['listen', '--forward-to', 'http://127.0.0.1:9/x'], noSecret, /--secret S or WEBHOOK_SECRET/],
      [
        ['listen', '--forward-to', 'http://127.0.0.1:9/x', '--cursor-file', foreign],
        env,
        /belongs to pk_test_someone_else/,
      ],
      [
        ['listen', '--forward-to', 'http://127.0.0.1:9/x', '--interval', 'soon'],
        env,
        /--interval must be a positive number/,
      ],
    ] as const;
    for (const [args, e, message] of cases) {
      const result = await runCli([...args], e);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('domain-sales listen, where it starts and when it gives up', () => {
  it('--from now forwards only events created after it started', async () => {
    const { cred, env } = await partner();
    const rx = await receiver();
    await order(cred);
    const cli = listen(
      ['--forward-to', rx.url, '--cursor-file', join(dir, `${randomUUID()}.json`), '--from', 'now'],
      env,
    );
    await cli.waitForOutput(/Resuming after evt_/);
    await order(cred);
    const events = await deliveredEvents(cred);
    expect(events).toHaveLength(2);
    await eventually(() => (rx.received.length > 0 ? true : undefined), 15_000, 'the forward');
    await new Promise((r) => setTimeout(r, 600));
    await cli.interrupt();
    expect(rx.received.map((r) => r.event.id)).toEqual([events[1]!.id]);
  });

  it('stops with exit 1 and one line when GET /events refuses the credential', async () => {
    const { env } = await partner();
    const result = await runCli(
      ['listen', '--forward-to', 'http://127.0.0.1:9/x', '--cursor-file', join(dir, `${randomUUID()}.json`)],
      {
        ...env,
        SERVICE_SECRET: 'sk_test_not_the_secret_0000000000',
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^domain-sales: GET \/events: 401 invalid_signature/m);
  });
});
