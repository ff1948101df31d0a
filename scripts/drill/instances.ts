// Two instances on one PostgreSQL (same MASTER_KEY, a fresh database) behind a round-robin proxy:
// zero replays accepted (each signed request sent twice at once), zero duplicate orders under
// concurrent same-key requests (and one sale per domain under concurrent different keys), and
// one rate limit shared by both instances.
import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mint, signFor, type Credential } from '../bench/lib/partner.ts';
import { freshDatabase, postgresUrlOrSkip } from '../bench/lib/postgres.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from '../bench/lib/processes.ts';
import { listedInventory, openServerStore } from '../bench/lib/store.ts';
import { timed, type DrillOptions, type DrillResult } from './lib.ts';

/** A round-robin reverse proxy; tells which instance answered in `x-drill-upstream`. */
async function roundRobin(upstreams: string[]): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next++ % upstreams.length;
    const target = new URL(upstreams[index] as string);
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, { ...upstream.headers, 'x-drill-upstream': String(index) });
        upstream.pipe(res);
      },
    );
    forward.on('error', (err) => {
      res.writeHead(502).end(String(err));
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Sent {
  status: number;
  upstream: string | null;
  body: string;
  headers: Headers;
}

async function send(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Sent> {
  const res = await fetch(base + target, { method, headers, ...(body ? { body } : {}) });
  return {
    status: res.status,
    upstream: res.headers.get('x-drill-upstream'),
    body: await res.text(),
    headers: res.headers,
  };
}

export async function instancesDrill(o: DrillOptions): Promise<DrillResult> {
  return timed('instances', async (checks, figures, skip) => {
    const pgUrl = postgresUrlOrSkip('the two-instance drill');
    if (!pgUrl) return skip('DATABASE_URL is not set: the two-instance drill needs PostgreSQL');
    const database = await freshDatabase(pgUrl, 'drill_instances');
    const masterKey = newMasterKey();
    const servers: Child[] = [];
    let proxy: { url: string; close(): Promise<void> } | undefined;
    const store = await openServerStore({ dataDir: tempDir('drill-inst'), databaseUrl: database.url, masterKey }).catch(
      async (err: unknown) => {
        await database.drop();
        throw err;
      },
    );
    try {
      // One after the other: the first creates the schema and the inventory.
      servers.push(
        await spawnServer({ databaseUrl: database.url, masterKey, validateResponses: false, inventorySize: 3000 }),
      );
      servers.push(
        await spawnServer({ databaseUrl: database.url, masterKey, validateResponses: false, inventorySize: 3000 }),
      );
      proxy = await roundRobin(servers.map((s) => s.url));
      const base = proxy.url;
      const credential: Credential = await mint(base);

      // 1. Replays: every signed request sent twice at the same moment.
      const pairs = o.quick ? 100 : 300;
      let accepted = 0;
      let replaysAccepted = 0;
      let crossInstance = 0;
      const refusedCodes: Record<string, number> = {};
      for (let i = 0; i < pairs; i += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, pairs - i) }, async () => {
            const target = `/api/partner/v1/availability?domain=replay-${randomUUID().slice(0, 8)}.com`;
            const headers = signFor(credential, 'GET', target);
            const [a, b] = await Promise.all([send(base, 'GET', target, headers), send(base, 'GET', target, headers)]);
            const ok = [a, b].filter((r) => r.status === 200).length;
            accepted += ok;
            if (ok > 1) replaysAccepted++;
            if (a.upstream !== b.upstream) crossInstance++;
            for (const r of [a, b])
              if (r.status !== 200)
                refusedCodes[`${r.status} ${(JSON.parse(r.body) as { code?: string }).code}`] =
                  (refusedCodes[`${r.status} ${(JSON.parse(r.body) as { code?: string }).code}`] ?? 0) + 1;
          }),
        );
      }
      checks.expect(replaysAccepted === 0, `${replaysAccepted} replays were accepted`);
      // A replay is refused as one (x-signing `nonce`), never with a server error.
      const otherRefusals = Object.entries(refusedCodes).filter(([code]) => code !== '401 replay_detected');
      checks.expect(
        otherRefusals.length === 0,
        `replays refused otherwise than 401 replay_detected: ${JSON.stringify(Object.fromEntries(otherRefusals))}`,
      );
      checks.expect(
        accepted === pairs,
        `${accepted} of ${pairs} first sends were accepted (each pair must have exactly one)`,
      );
      checks.expect(crossInstance >= pairs * 0.3, `only ${crossInstance} of ${pairs} pairs reached both instances`);

      // 2. Concurrent same-key orders, and concurrent different keys for one domain.
      const domains = await listedInventory(store, 200);
      const keys = o.quick ? 10 : 30;
      const perKey = 10;
      const sameKeyStatuses: Record<string, number> = {};
      let keysWithOneOrder = 0;
      let inconsistentAnswers = 0;
      const sameKeyDomains = domains.slice(0, keys);
      await Promise.all(
        sameKeyDomains.map(async (listing) => {
          const key = randomUUID();
          const body = JSON.stringify({
            domain: listing.domain,
            expected_price: listing.price_cents,
            currency: listing.currency,
            buyer: { email: 'twins@example.org' },
          });
          const answers = await Promise.all(
            Array.from({ length: perKey }, () =>
              send(
                base,
                'POST',
                '/api/partner/v1/orders',
                {
                  'content-type': 'application/json',
                  ...signFor(credential, 'POST', '/api/partner/v1/orders', body, key),
                },
                body,
              ),
            ),
          );
          for (const a of answers) sameKeyStatuses[a.status] = (sameKeyStatuses[a.status] ?? 0) + 1;
          const ids = new Set(
            answers.filter((a) => a.status === 201).map((a) => (JSON.parse(a.body) as { public_id: string }).public_id),
          );
          if (ids.size > 1 || answers.some((a) => a.status !== 201 && a.status !== 409)) inconsistentAnswers++;
          const stored = await store.db
            .selectFrom('orders')
            .select('public_id')
            .where('domain', '=', listing.domain)
            .execute();
          if (stored.length === 1 && (ids.size === 0 || ids.has(stored[0]?.public_id as string))) keysWithOneOrder++;
        }),
      );
      checks.expect(
        keysWithOneOrder === keys,
        `${keys - keysWithOneOrder} of ${keys} idempotency keys did not end with exactly one order (matching the answers)`,
      );
      checks.expect(
        inconsistentAnswers === 0,
        `${inconsistentAnswers} keys got differing orders or unexpected statuses`,
      );

      const contested = domains[keys] as (typeof domains)[number];
      const contestBody = JSON.stringify({
        domain: contested.domain,
        expected_price: contested.price_cents,
        currency: contested.currency,
        buyer: { email: 'rivals@example.org' },
      });
      const contest = await Promise.all(
        Array.from({ length: 10 }, () =>
          send(
            base,
            'POST',
            '/api/partner/v1/orders',
            {
              'content-type': 'application/json',
              ...signFor(credential, 'POST', '/api/partner/v1/orders', contestBody, randomUUID()),
            },
            contestBody,
          ),
        ),
      );
      const contestStatuses: Record<string, number> = {};
      for (const a of contest) contestStatuses[a.status] = (contestStatuses[a.status] ?? 0) + 1;
      const contestedOrders = await store.db
        .selectFrom('orders')
        .select('public_id')
        .where('domain', '=', contested.domain)
        .execute();
      checks.expect(
        contestStatuses['201'] === 1 && contestedOrders.length === 1,
        `10 keys for one domain: ${JSON.stringify(contestStatuses)}, ${contestedOrders.length} orders stored (want one 201 and one order)`,
      );

      // 3. One rate limit across both instances.
      const limited = await mint(base, { rate_limits: { search: 30, write: 1_000_000, reporting: 1_000_000 } });
      const rl: Record<string, number> = {};
      const remaining: number[] = [];
      const served = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const target = `/api/partner/v1/availability?domain=limit-${i}.com`;
        const r = await send(base, 'GET', target, signFor(limited, 'GET', target));
        rl[r.status] = (rl[r.status] ?? 0) + 1;
        remaining.push(Number(r.headers.get('ratelimit-remaining')));
        if (r.upstream) served.add(r.upstream);
      }
      checks.expect(
        rl['200'] === 30 && rl['429'] === 10,
        `quota 30 over two instances: ${JSON.stringify(rl)} (want 30 x 200, 10 x 429)`,
      );
      checks.expect(served.size === 2, `the rate-limited calls reached ${served.size} instance(s)`);
      checks.expect(
        remaining.slice(0, 30).every((r, i) => r === 29 - i),
        `RateLimit-Remaining did not count down across instances: ${remaining.slice(0, 30).join(',')}`,
      );

      Object.assign(figures, {
        replayPairs: pairs,
        firstSendsAccepted: accepted,
        replaysAccepted,
        pairsAcrossInstances: crossInstance,
        replayRefusals: refusedCodes,
        sameKey: { keys, requestsPerKey: perKey, statuses: sameKeyStatuses, keysWithExactlyOneOrder: keysWithOneOrder },
        oneDomainTenKeys: { statuses: contestStatuses, ordersStored: contestedOrders.length },
        sharedRateLimit: { quota: 30, sent: 40, statuses: rl, instances: served.size },
      });
    } finally {
      await proxy?.close();
      await Promise.all(servers.map((s) => s.stop()));
      await store.close();
      await database.drop();
    }
  });
}
