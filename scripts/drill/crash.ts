// Crash drill: kill -9 the server (SQLite) in the middle of a load of POST /orders and webhook
// deliveries, restart it on the same DATA_DIR, and retry every request whose answer was lost with
// its own idempotency key (as a client must). Then: every 2xx answer's order exists exactly once,
// no order exists that no answer accounts for, no domain is sold twice, and every order.recorded
// event reaches the receiver at least once.
import { randomUUID } from 'node:crypto';
import { mint, signedRequest, type Credential } from '../bench/lib/partner.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from '../bench/lib/processes.ts';
import { startReceiver } from '../bench/lib/receiver.ts';
import { listedInventory, openServerStore } from '../bench/lib/store.ts';
import { sleep, timed, waitUntil, type DrillOptions, type DrillResult } from './lib.ts';

const PATH = '/api/partner/v1/orders';

interface Attempt {
  key: string;
  body: string;
  domain: string;
  /** Final status once known. */
  status?: number;
  publicId?: string;
}

export async function crashDrill(o: DrillOptions): Promise<DrillResult> {
  return timed('crash', async (checks, figures) => {
    const dataDir = tempDir('drill-crash');
    const masterKey = newMasterKey();
    // The documented back-off, a thousand times faster; a 2 s delivery timeout shortens the lease
    // a killed instance leaves on the deliveries it had in flight (timeout + 10 s).
    const start = () =>
      spawnServer({
        dataDir,
        masterKey,
        validateResponses: false,
        backoffScale: 0.001,
        webhookTimeoutMs: 2000,
        inventorySize: 5000,
      });
    let server: Child = await start();
    const receiver = await startReceiver();
    const store = await openServerStore({ dataDir, masterKey });
    const cycles = o.quick ? 1 : 3;
    try {
      const credential: Credential = await mint(server.url);
      const hook = await signedRequest(server.url, credential, 'PUT', '/api/partner/webhooks', {
        url: receiver.url,
        secret: receiver.secret,
      });
      if (hook.status !== 200) throw new Error(`webhook registration: ${hook.status} ${hook.text}`);
      const domains = await listedInventory(store, 5000);
      let nextDomain = 0;
      const attempts: Attempt[] = [];
      const lost: Attempt[] = [];
      let up = true;

      const post = async (a: Attempt) => {
        const res = await signedRequest(server.url, credential, 'POST', PATH, a.body, { 'Idempotency-Key': a.key });
        return res;
      };
      const worker = async (until: () => boolean) => {
        while (!until()) {
          const listing = domains[nextDomain++];
          if (!listing) return;
          const a: Attempt = {
            key: randomUUID(),
            domain: listing.domain,
            body: JSON.stringify({
              domain: listing.domain,
              expected_price: listing.price_cents,
              currency: listing.currency,
              buyer: { email: 'crash@example.org' },
            }),
          };
          attempts.push(a);
          try {
            const res = await post(a);
            a.status = res.status;
            if (res.status === 201) a.publicId = (res.json() as { public_id: string }).public_id;
          } catch {
            lost.push(a);
            if (!up) return;
          }
        }
      };

      let kills = 0;
      for (let cycle = 0; cycle < cycles; cycle++) {
        const killAt = Date.now() + 1500 + Math.floor(Math.random() * 1500);
        const load = Array.from({ length: 8 }, () => worker(() => !up || Date.now() > killAt + 5000));
        while (Date.now() < killAt) await sleep(20);
        up = false;
        await server.kill();
        kills++;
        await Promise.all(load);
        o.log(
          `  crash: kill -9 #${kills} after ${attempts.length} requests (${lost.length} answers lost so far), restarting on the same DATA_DIR`,
        );
        server = await start();
        up = true;
      }
      // A little load on the restarted server, then settle every lost answer with its own key.
      const after = Date.now() + 1500;
      await Promise.all(Array.from({ length: 4 }, () => worker(() => Date.now() > after)));
      const retried = { count: lost.length, conflictsWaited: 0 };
      const settleBy = Date.now() + 150_000;
      for (const a of lost) {
        for (;;) {
          const res = await post(a);
          // A claim left executing by the killed process is taken over after 60 s (409 until then).
          if (res.status === 409 && res.headers.get('retry-after') && Date.now() < settleBy) {
            retried.conflictsWaited++;
            await sleep(Math.min(5000, Number(res.headers.get('retry-after')) * 1000));
            continue;
          }
          a.status = res.status;
          if (res.status === 201) a.publicId = (res.json() as { public_id: string }).public_id;
          break;
        }
      }

      const answered = attempts.filter((a) => a.status === 201);
      const ids = new Set(answered.map((a) => a.publicId));
      const rows = await store.db
        .selectFrom('orders')
        .select(['public_id', 'domain'])
        .where('partner_id', '=', credential.partnerId)
        .execute();
      const count = new Map<string, number>();
      for (const r of rows) count.set(r.public_id, (count.get(r.public_id) ?? 0) + 1);
      const perDomain = new Map<string, number>();
      for (const r of rows) perDomain.set(r.domain, (perDomain.get(r.domain) ?? 0) + 1);
      const missing = [...ids].filter((id) => count.get(id as string) !== 1);
      const unaccounted = rows.filter((r) => !ids.has(r.public_id));
      const doubleSold = [...perDomain].filter(([, n]) => n > 1);
      const otherStatuses: Record<string, number> = {};
      for (const a of attempts)
        if (a.status !== 201) otherStatuses[String(a.status)] = (otherStatuses[String(a.status)] ?? 0) + 1;

      const events = await store.db
        .selectFrom('events')
        .select(['id', 'type'])
        .where('partner_id', '=', credential.partnerId)
        .where('type', '=', 'order.recorded')
        .execute();
      const delivered = await waitUntil(() => events.every((e) => receiver.received.has(e.id)), 90_000, 250);
      const undelivered = events.filter((e) => !receiver.received.has(e.id));
      Object.assign(figures, {
        kills,
        requests: attempts.length,
        answersLostToKills: retried.count,
        retriesWaitingOnTakeover: retried.conflictsWaited,
        created201: answered.length,
        ordersStored: rows.length,
        otherStatuses,
        events: events.length,
        eventsDelivered: events.length - undelivered.length,
        deliveries: receiver.deliveries.length,
        duplicateDeliveries: receiver.deliveries.length - receiver.received.size,
        badSignatures: receiver.badSignatures,
      });
      checks.expect(kills === cycles, `killed ${kills} times, meant ${cycles}`);
      checks.expect(
        missing.length === 0,
        `${missing.length} orders answered 201 are not stored exactly once: ${missing.slice(0, 5).join(', ')}`,
      );
      checks.expect(
        unaccounted.length === 0,
        `${unaccounted.length} stored orders match no 201 answer: ${unaccounted
          .slice(0, 5)
          .map((r) => r.public_id)
          .join(', ')}`,
      );
      checks.expect(doubleSold.length === 0, `${doubleSold.length} domains have more than one order`);
      checks.expect(
        Object.keys(otherStatuses).length === 0,
        `requests with a fresh key and a listed domain answered other than 201: ${JSON.stringify(otherStatuses)}`,
      );
      checks.expect(
        delivered,
        `${undelivered.length} of ${events.length} order.recorded events never reached the receiver`,
      );
      checks.expect(receiver.badSignatures === 0, `${receiver.badSignatures} deliveries had a bad signature`);
    } finally {
      await receiver.close();
      await store.close();
      await server.stop();
    }
  });
}
