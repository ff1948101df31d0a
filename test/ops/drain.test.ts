// SIGTERM under load, on the real process (`tsx server/main.ts`, a temporary DATA_DIR): /readyz
// turns 503 first; the load stops starting requests once it sees that, as a load balancer does;
// every request started before then is answered (no connection error, no 5xx), every 201 order
// is in the store after the process exits 0, and no outbox row is lost or left mid-delivery.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateInventory } from '../../server/inventory/generate.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore } from '../../server/store/index.ts';
import { readFileSync } from 'node:fs';
import type { Harness } from '../server/harness.ts';
import { orderBody, signedRequest, type Reply } from '../server/support/http.ts';

const ROOT = join(fileURLToPath(import.meta.url), '../../..');
const ADMIN_TOKEN = `admin-${randomUUID()}`;
const INVENTORY = 400;
const GRACE_MS = 1500;
/** The receiver holds each delivery this long, so some are in flight when the drain starts. */
const RECEIVER_DELAY_MS = 300;

interface Started {
  child: ChildProcess;
  url: string;
  output: string[];
  exited: Promise<number | null>;
}

async function startProcess(dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    SANDBOX_INVENTORY_SIZE: String(INVENTORY),
    DRAIN_GRACE_MS: String(GRACE_MS),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  };
  delete env.DATABASE_URL;
  delete env.METRICS_PORT;
  // What `npm start` runs: one node process with tsx as its loader. (The `tsx` CLI runs the
  // server in a child process and relays SIGTERM to it, but SIGKILLs it when the child has not
  // acknowledged the signal within 30 ms, which a child busy with requests does not: a drain
  // under load would be cut short with exit 143. Hence `node --import tsx` in package.json.)
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  // 'close', not 'exit': every line the process wrote has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output.join('\n')}`)), 50_000);
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        output.push(line);
        try {
          const record = JSON.parse(line) as { event?: string; url?: string };
          if (record.event === 'listening' && record.url) {
            clearTimeout(timer);
            resolve(record.url);
          }
        } catch {
          // not a log line
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    void exited.then((code) => reject(new Error(`the server exited (${code}):\n${output.join('\n')}`)));
  });
  return { child, url, output, exited };
}

/** A webhook receiver that answers 200 after a delay, recording the event ids it answered. */
async function slowReceiver(): Promise<{ url: string; answered: Set<string>; server: Server }> {
  const answered = new Set<string>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(200).end('ok');
        answered.add(String(req.headers['x-service-event-id']));
      }, RECEIVER_DELAY_MS),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, answered, server };
}

describe('drain on SIGTERM (the real process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drain-'));
  let started: Started | undefined;
  let receiver: Awaited<ReturnType<typeof slowReceiver>> | undefined;
  afterAll(async () => {
    if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
    receiver?.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request accepted before the drain, loses no order and no outbox row, exits 0', async () => {
    started = await startProcess(dataDir);
    const { url } = started;
    const target = { baseUrl: url, clock: { now: () => Date.now() } } as unknown as Harness;
    const readyz = async () => (await fetch(`${url}/readyz`)).status;
    for (let i = 0; (await readyz()) !== 200; i++) {
      if (i > 200) throw new Error('never ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const minted = await fetch(`${url}/api/admin/v1/credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        environment: 'sandbox',
        scopes: ['search', 'buy', 'webhook'],
        rate_limits: { search: 10_000, write: 10_000, reporting: 10_000 },
      }),
    });
    expect(minted.status).toBe(201);
    const cred = (await minted.json()) as { key_id: string; secret: string; partner_id: string };
    receiver = await slowReceiver();
    const hook = await signedRequest(target, cred, {
      method: 'PUT',
      path: '/api/partner/webhooks',
      body: { url: receiver.url, secret: `whsec_${randomUUID()}` },
    });
    expect(hook.status, hook.text).toBe(200);

    // The load: 6 workers placing orders, each on a domain of its own, until /readyz says 503.
    const domains = [...generateInventory({ size: INVENTORY, seed: 1 })].map((r) => r.domain);
    let next = 0;
    let balancerSawDrain = false;
    const results: Array<{ reply?: Reply; error?: string; startedAt: number; endedAt: number }> = [];
    const worker = async () => {
      while (!balancerSawDrain) {
        const domain = domains[next++];
        if (!domain) break;
        const startedAt = Date.now();
        try {
          const price = await signedRequest(target, cred, {
            path: '/api/partner/v1/pricing',
            query: `domain=${domain}`,
          });
          if (price.status !== 200) {
            results.push({ reply: price, startedAt, endedAt: Date.now() });
            continue;
          }
          const body = orderBody({
            domain,
            price: price.body.price_cents as number,
            currency: price.body.currency as string,
          });
          const reply = await signedRequest(target, cred, {
            method: 'POST',
            path: '/api/partner/v1/orders',
            body,
            idempotencyKey: randomUUID(),
          });
          results.push({ reply, startedAt, endedAt: Date.now() });
        } catch (err) {
          results.push({ error: String((err as { cause?: unknown }).cause ?? err), startedAt, endedAt: Date.now() });
        }
      }
    };
    const prober = async () => {
      while (!balancerSawDrain) {
        const status = await readyz().catch(() => 0);
        if (status !== 200) balancerSawDrain = true;
        else await new Promise((r) => setTimeout(r, 50));
      }
    };
    const load = Promise.all([prober(), ...Array.from({ length: 6 }, worker)]);
    await new Promise((r) => setTimeout(r, 1500));
    const signalledAt = Date.now();
    started.child.kill('SIGTERM');
    await load;
    const code = await started.exited;

    expect(code, started.output.join('\n')).toBe(0);
    const failures = results.filter(
      (r) => r.error !== undefined || (r.reply && r.reply.status !== 201 && r.reply.status !== 200),
    );
    expect(failures.map((f) => f.error ?? `${f.reply?.status} ${f.reply?.text}`)).toEqual([]);
    const orders = results.filter((r) => r.reply?.status === 201).map((r) => r.reply?.body.public_id as string);
    expect(orders.length).toBeGreaterThan(5);
    // Served during the drain: answers that arrived after the signal.
    expect(results.filter((r) => r.endedAt > signalledAt).length).toBeGreaterThan(0);
    const events = started.output
      .map((l) => (l.startsWith('{') ? (JSON.parse(l) as { event?: string }).event : undefined))
      .filter((e) => e?.startsWith('drain'));
    expect(events).toEqual(['drain_started', 'drain_requests_done', 'drain_deliveries_done', 'drain_done']);

    // After the restart of the store: every 201 order is there, and every event has its outbox
    // row, none left leased mid-delivery; what the receiver answered is marked delivered.
    const key = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'hex');
    const store = createStore(await openDatabase({ dataDir }), secretBox(key));
    try {
      const stored = new Set(
        (
          await store.db.selectFrom('orders').select('public_id').where('partner_id', '=', cred.partner_id).execute()
        ).map((r) => r.public_id),
      );
      for (const id of orders) expect(stored.has(id), `order ${id}`).toBe(true);
      const events = await store.db
        .selectFrom('events')
        .select('id')
        .where('partner_id', '=', cred.partner_id)
        .execute();
      const outbox = await store.db
        .selectFrom('outbox')
        .selectAll()
        .where('partner_id', '=', cred.partner_id)
        .execute();
      expect(events.length).toBeGreaterThanOrEqual(orders.length);
      expect(outbox.map((r) => r.event_id).sort()).toEqual(events.map((e) => e.id).sort());
      expect(outbox.filter((r) => r.lease_until !== null && r.status === 'pending')).toEqual([]);
      const delivered = new Set(outbox.filter((r) => r.status === 'delivered').map((r) => r.event_id));
      for (const id of receiver.answered)
        expect(delivered.has(id), `delivery of ${id} answered 200 but not marked delivered`).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);
});
