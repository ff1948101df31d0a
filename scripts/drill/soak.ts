// Soak: a steady load for N minutes (signed GETs over several credentials, and a trickle of
// orders); no error answers, the server's memory flat, and the nonce and rate-limit tables
// bounded (nonces are kept 360 s past their timestamp and purged every minute, so they plateau at
// about rate x 420 s; rate counters at one row per credential and class).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mint, signFor, signedRequest, type Credential } from '../bench/lib/partner.ts';
import { runLoad } from '../bench/lib/load.ts';
import { newMasterKey, spawnServer, tempDir } from '../bench/lib/processes.ts';
import { listedInventory, openServerStore } from '../bench/lib/store.ts';
import { median } from '../bench/lib/table.ts';
import { timed, type DrillOptions, type DrillResult } from './lib.ts';

const RATE = 200;
const ORDERS_EVERY_MS = 1000;

function rssMegabytes(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb) / 1024;
  } catch {
    return NaN;
  }
}

export async function soakDrill(o: DrillOptions & { minutes: number }): Promise<DrillResult> {
  return timed('soak', async (checks, figures) => {
    const dataDir = tempDir('drill-soak');
    const masterKey = newMasterKey();
    const server = await spawnServer({ dataDir, masterKey, validateResponses: false, inventorySize: 5000 });
    const store = await openServerStore({ dataDir, masterKey });
    try {
      const credentials: Credential[] = [];
      for (let i = 0; i < 5; i++) credentials.push(await mint(server.url));
      const listings = await listedInventory(store, 5000);
      const seconds = Math.round(o.minutes * 60);
      const samples: Array<{ t: number; rssMb: number; nonces: number; rateCounters: number }> = [];
      const started = Date.now();
      const sample = async () => {
        // SQLite logs its nonces (the server indexes the log in memory, so the log bounds both).
        const n = await store.db
          .selectFrom(store.dialect === 'sqlite' ? 'nonce_log' : 'nonces')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const r = await store.db
          .selectFrom('rate_counters')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        samples.push({
          t: Math.round((Date.now() - started) / 1000),
          rssMb: Math.round(rssMegabytes(server.child.pid) * 10) / 10,
          nonces: Number(n.n),
          rateCounters: Number(r.n),
        });
      };
      const sampler = setInterval(() => void sample(), 5000);
      let orderIndex = 0;
      const orderStatuses: Record<string, number> = {};
      const orders = setInterval(() => {
        const l = listings[orderIndex++];
        if (!l) return;
        const c = credentials[orderIndex % credentials.length] as Credential;
        void signedRequest(
          server.url,
          c,
          'POST',
          '/api/partner/v1/orders',
          {
            domain: l.domain,
            expected_price: l.price_cents,
            currency: l.currency,
            buyer: { email: 'soak@example.org' },
          },
          { 'Idempotency-Key': randomUUID() },
        ).then(
          (res) => void (orderStatuses[res.status] = (orderStatuses[res.status] ?? 0) + 1),
          () => void (orderStatuses.error = (orderStatuses.error ?? 0) + 1),
        );
      }, ORDERS_EVERY_MS);
      let turn = 0;
      const load = await runLoad({
        url: server.url,
        connections: 8,
        duration: seconds,
        path: '/api/partner/v1/availability?domain=soak.com',
        pid: server.child.pid,
        overallRate: RATE,
        build: () => {
          const c = credentials[turn++ % credentials.length] as Credential;
          const target = `/api/partner/v1/availability?domain=${listings[turn % listings.length]?.domain ?? 'soak.com'}`;
          return { path: target, headers: signFor(c, 'GET', target) };
        },
      });
      clearInterval(sampler);
      clearInterval(orders);
      await sample();

      // Memory: the second quarter (after warm-up) against the last quarter.
      const quarter = (q: number) =>
        samples.filter((s) => s.t >= (seconds * q) / 4 && s.t < (seconds * (q + 1)) / 4 + 1).map((s) => s.rssMb);
      const early = median(quarter(1));
      const late = median(quarter(3));
      const maxNonces = Math.max(...samples.map((s) => s.nonces));
      const maxCounters = Math.max(...samples.map((s) => s.rateCounters));
      const nonceBound = Math.ceil((RATE + 1000 / ORDERS_EVERY_MS + 5) * 430);
      const non2xx = Object.entries(load.statuses).reduce((n, [s, c]) => n + (s.startsWith('2') ? 0 : c), 0);
      const orderErrors = Object.entries(orderStatuses).reduce((n, [s, c]) => n + (s === '201' ? 0 : c), 0);
      Object.assign(figures, {
        minutes: o.minutes,
        requests: load.requests,
        rps: Math.round(load.rps),
        p50: load.p50,
        p99: load.p99,
        statuses: load.statuses,
        errors: load.errors,
        timeouts: load.timeouts,
        orders: orderStatuses,
        rssMb: {
          start: samples[0]?.rssMb,
          secondQuarterMedian: early,
          lastQuarterMedian: late,
          max: Math.max(...samples.map((s) => s.rssMb)),
        },
        nonces: { max: maxNonces, last: samples[samples.length - 1]?.nonces, bound: nonceBound },
        rateCounters: { max: maxCounters },
        samples: samples.filter((_, i) => i % 6 === 0 || i === samples.length - 1),
      });
      checks.expect(
        non2xx === 0 && load.errors === 0 && load.timeouts === 0,
        `error answers under the soak: ${JSON.stringify(load.statuses)}, ${load.errors} errors, ${load.timeouts} timeouts`,
      );
      checks.expect(orderErrors === 0, `orders during the soak: ${JSON.stringify(orderStatuses)}`);
      checks.expect(
        late <= early * 1.2 + 16,
        `memory grew from ${early} MB to ${late} MB (second quarter vs last quarter median RSS)`,
      );
      checks.expect(
        maxNonces <= nonceBound,
        `${maxNonces} nonces stored, above the bound ${nonceBound} (rate x 430 s)`,
      );
      checks.expect(
        maxCounters <= credentials.length * 3,
        `${maxCounters} rate-limit rows for ${credentials.length} credentials`,
      );
      if (o.minutes >= 8) {
        // Past the retention the nonce table must stop growing: the last two minutes' maximum
        // is no higher than the minute before them (with a margin for rate jitter).
        const at = (from: number, to: number) =>
          Math.max(...samples.filter((s) => s.t >= from && s.t < to).map((s) => s.nonces));
        const plateau = at(seconds - 120, seconds + 1);
        const before = at(seconds - 180, seconds - 120);
        figures.noncePlateau = { lastTwoMinutesMax: plateau, minuteBeforeMax: before };
        checks.expect(
          plateau <= before * 1.1,
          `the nonce table still grows after the retention: ${before} then ${plateau}`,
        );
      }
    } finally {
      await store.close();
      await server.stop();
    }
  });
}
