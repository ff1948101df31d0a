// The edges of the partner contract, where off-by-one mistakes live (x-signing: the skew window
// and the nonce's memory; the `limit` parameters' minimum and maximum). The skew edges need the
// server's clock to the second: the suite finds the instant the server's second turns (its Date
// header ticks), then sends each edge request in the middle of a known server second, so a
// timestamp exactly 300 s away is exactly 300 s away when the server reads it.
import { randomUUID } from 'node:crypto';
import { CheckFailure, CheckSkipped, expect, expectStatus, oncePerRun, type Context, type Family } from '../context.ts';
import { jsonOf, sleep, type Credentials, type Exchange } from '../http.ts';
import type { SpecOperation } from '../spec.ts';
import { plannedRuns } from '../pacing.ts';
import { expectCode } from './errors.ts';
import { partnerOp } from './orders-support.ts';

const PROBE = 'getAvailability';

/** Where the server's seconds turn, on this machine's clock. */
export interface SecondGrid {
  /** A local time (ms) at which the server's clock reads `second`.000. */
  boundaryLocalMs: number;
  second: number;
  /** Half the width of the window the boundary was found in (ms). */
  uncertaintyMs: number;
  /** Round trip of an unsigned probe (ms). */
  rttMs: number;
}

/**
 * Polls an unsigned request (a 401 that no rate limit counts) until the Date header's second
 * turns; the boundary lies between the two answers. Measured once per run.
 */
export function secondGrid(ctx: Context): Promise<SecondGrid> {
  return oncePerRun(ctx, 'second grid', () => measureGrid(ctx));
}

/** The grid's uncertainty the edge checks need: a request sent mid-second must land in that second. */
const GRID_NEEDED_MS = 350;
/** Measurements of the grid (and sendings of one edge request) before a busy machine is given up on. */
const ATTEMPTS = 5;

async function measureGrid(ctx: Context): Promise<SecondGrid> {
  // On a busy machine one measurement can be slow and vague: the best of a few is kept.
  let best: SecondGrid | undefined;
  for (let i = 0; i < ATTEMPTS && !(best && best.uncertaintyMs < GRID_NEEDED_MS / 2); i++) {
    const grid = await measureGridOnce(ctx);
    if (!best || grid.uncertaintyMs < best.uncertaintyMs) best = grid;
  }
  return best!;
}

async function measureGridOnce(ctx: Context): Promise<SecondGrid> {
  const op = partnerOp(ctx, PROBE);
  const poll = async () => {
    const sent = Date.now();
    const e = await ctx.http.send({
      target: `${op.operation.path}?domain=bestcoffeebeans.com`,
      operation: op.operation,
      deliberate: true,
    });
    const received = Date.now();
    const date = Date.parse(e.responseHeaders.date ?? '');
    if (Number.isNaN(date))
      throw new CheckFailure('the answer has no usable Date header to find the server clock with', [e]);
    return { sent, received, second: date / 1000, exchange: e };
  };
  let previous = await poll();
  let slowest = previous.received - previous.sent;
  const started = Date.now();
  // A second turns within 1 s of polling, plus the slowest round trip seen (a slow answer's Date is old).
  while (Date.now() - started < 1000 + 4 * slowest) {
    await sleep(8);
    const next = await poll();
    slowest = Math.max(slowest, next.received - next.sent);
    if (next.second === previous.second + 1) {
      const a = (previous.sent + previous.received) / 2;
      const b = (next.sent + next.received) / 2;
      return {
        boundaryLocalMs: (a + b) / 2,
        second: next.second,
        uncertaintyMs: (next.received - previous.sent) / 2,
        rttMs: next.received - next.sent,
      };
    }
    previous = next;
  }
  throw new CheckFailure(
    `the Date header of the deployment did not turn to the next second within ${Math.round((Date.now() - started) / 1000)} s of polling`,
  );
}

/**
 * Sends `request` in the middle of a server second (at least `ahead` seconds from now) and tells
 * whether the server surely read its clock in that second: the whole span from sending to the
 * answer, widened by the grid's uncertainty, lies inside it. On a busy machine a request can
 * leave late or wait in a queue; such an outcome proves nothing either way.
 */
async function inSecond(
  grid: SecondGrid,
  request: (second: number) => Promise<Exchange>,
  ahead = 0,
): Promise<{ second: number; exchange: Exchange; sure: boolean }> {
  return sendIn(grid, await midSecond(grid, ahead), request);
}

/** Sends `request` now and tells whether the server surely read its clock in `second`. */
async function sendIn(
  grid: SecondGrid,
  second: number,
  request: (second: number) => Promise<Exchange>,
): Promise<{ second: number; exchange: Exchange; sure: boolean }> {
  const sent = Date.now();
  const exchange = await request(second);
  const received = Date.now();
  const start = grid.boundaryLocalMs + (second - grid.second) * 1000;
  const sure = sent - grid.uncertaintyMs >= start && received + grid.uncertaintyMs < start + 1000;
  return { second, exchange, sure };
}

/** Sends an edge request until it surely lands in its second (at most ATTEMPTS times). */
async function atEdge(
  ctx: Context,
  grid: SecondGrid,
  request: (second: number) => Promise<Exchange>,
  why: string,
): Promise<{ second: number; exchange: Exchange }> {
  for (let i = 1; ; i++) {
    const sent = await inSecond(grid, request);
    if (sent.sure) return sent;
    if (i >= ATTEMPTS)
      throw new CheckFailure(
        `${why}: in ${ATTEMPTS} tries no request both left and was answered inside one server second (round trips of ${sent.exchange.ms} ms, grid ±${Math.round(grid.uncertaintyMs)} ms), so the edge cannot be told apart`,
        [sent.exchange],
      );
    ctx.log(`${why}: the request took ${sent.exchange.ms} ms and may have crossed a server second; sending it again`);
  }
}

/** Waits until the middle of a server second (at least `ahead` seconds from now) and returns that second. */
async function midSecond(grid: SecondGrid, ahead = 0): Promise<number> {
  const now = Date.now();
  const elapsed = Math.floor((now - grid.boundaryLocalMs) / 1000);
  let second = grid.second + elapsed + 1 + ahead;
  let at = grid.boundaryLocalMs + (second - grid.second) * 1000 + 500 - grid.rttMs / 2;
  if (at < now) {
    second++;
    at += 1000;
  }
  await sleep(at - now);
  return second;
}

function probeRequest(
  ctx: Context,
  credentials: Credentials,
  extra: { timestamp?: string; nonce?: string; deliberate?: boolean } = {},
): Promise<Exchange> {
  const op = partnerOp(ctx, PROBE);
  return ctx.http.signed({
    target: `${op.operation.path}?domain=bestcoffeebeans.com`,
    credentials,
    operation: op.operation,
    rateClass: op.rateClass,
    ...extra,
  });
}

function expectAccepted(exchange: Exchange, why: string): void {
  if (exchange.status === 401)
    throw new CheckFailure(
      `${why}: refused with 401 ${String((jsonOf(exchange) as { code?: unknown } | undefined)?.code ?? '')}`,
      [exchange],
    );
  expectStatus(exchange, 200, why);
}

function skewSeconds(ctx: Context): number {
  const skew = ctx.spec.extension<number>('partner', 'x-signing/timestamp-skew-seconds');
  if (typeof skew !== 'number') throw new CheckFailure('the contract states no x-signing timestamp-skew-seconds');
  return skew;
}

async function skewEdge(ctx: Context, sign: 1 | -1, direction: string): Promise<void> {
  const credentials = await ctx.credentials();
  const grid = await secondGrid(ctx);
  const skew = skewSeconds(ctx);
  expect(
    grid.uncertaintyMs < GRID_NEEDED_MS,
    `the server's second could only be located to ±${Math.round(grid.uncertaintyMs)} ms (round trip ${grid.rttMs} ms, best of ${ATTEMPTS} measurements); the edge checks need ±${GRID_NEEDED_MS} ms`,
  );
  const inside = await atEdge(
    ctx,
    grid,
    (second) => probeRequest(ctx, credentials, { timestamp: String(second + sign * skew) }),
    `a timestamp exactly ${skew} s ${direction}`,
  );
  expectAccepted(
    inside.exchange,
    `a timestamp exactly ${skew} s ${direction} (sent in the middle of server second ${inside.second})`,
  );
  const outside = await atEdge(
    ctx,
    grid,
    (second) => probeRequest(ctx, credentials, { timestamp: String(second + sign * (skew + 1)), deliberate: true }),
    `a timestamp ${skew + 1} s ${direction}`,
  );
  expectCode(
    ctx,
    outside.exchange,
    'invalid_timestamp',
    `a timestamp ${skew + 1} s ${direction} (sent in the middle of server second ${outside.second})`,
  );
}

/** The partner lists that page with `limit`, with its documented bounds. */
function limitedLists(ctx: Context): Array<{ op: SpecOperation; min: number; max: number }> {
  return ctx.spec.operations
    .filter((o) => o.api === 'partner' && o.method === 'GET')
    .flatMap((op) => {
      const p = op.parameters.find((x) => x.name === 'limit' && x.in === 'query');
      const schema = (p?.schema ?? {}) as { minimum?: unknown; maximum?: unknown };
      return typeof schema.minimum === 'number' && typeof schema.maximum === 'number'
        ? [{ op, min: schema.minimum, max: schema.maximum }]
        : [];
    });
}

export const edgesFamily: Family = {
  name: 'edges',
  surface: 'partner',
  description:
    'The skew window at exactly ±300 s and one past, nonce replays after a pause and at the end of the window, nonce length, limit at its minimum, maximum and one past on every list',
  needs: ['credentials'],
  checks: [
    {
      id: 'partner.auth.skew.past-edge',
      rules: [
        'spec:partner#/x-signing/timestamp-comparison',
        'spec:partner#/components/responses/Unauthorized',
        'seed:partner › Authentication › Replay protection',
      ],
      name: 'a timestamp exactly 300 s in the past (by the server clock, to the second) is accepted; 301 s is 401 invalid_timestamp',
      async run(ctx) {
        await skewEdge(ctx, -1, 'in the past');
      },
    },
    {
      id: 'partner.auth.skew.future-edge',
      rules: [
        'spec:partner#/x-signing/timestamp-comparison',
        'spec:partner#/components/responses/Unauthorized',
        'seed:partner › Authentication › Replay protection',
      ],
      name: 'a timestamp exactly 300 s in the future is accepted; 301 s is 401 invalid_timestamp',
      async run(ctx) {
        await skewEdge(ctx, 1, 'in the future');
      },
    },
    {
      id: 'partner.auth.nonce.after-pause',
      rules: ['spec:partner#/x-signing/nonce', 'spec:partner#/x-signing/nonce-store'],
      name: 'a nonce replayed 3 s later (after the nonce store has written it), signed with a fresh timestamp, is 401 replay_detected',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const nonce = randomUUID();
        expectAccepted(await probeRequest(ctx, credentials, { nonce }), 'the first use of a nonce');
        await sleep(3000);
        expectCode(
          ctx,
          await probeRequest(ctx, credentials, { nonce, deliberate: true }),
          'replay_detected',
          'the same nonce 3 s later, with a fresh timestamp',
        );
      },
    },
    {
      id: 'partner.auth.nonce.window-end',
      rules: ['spec:partner#/x-signing/nonce', 'spec:partner#/x-signing/timestamp-skew-seconds'],
      name: 'a nonce replayed when its timestamp is exactly 300 s old (still inside the window) is 401 replay_detected',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const grid = await secondGrid(ctx);
        const skew = skewSeconds(ctx);
        // The replay must reach the server in the second its timestamp turns exactly `skew` old:
        // a sequence whose timing a busy machine blurred is run again with a new nonce.
        for (let attempt = 1; ; attempt++) {
          const nonce = randomUUID();
          const first = await inSecond(grid, (second) =>
            probeRequest(ctx, credentials, { nonce, timestamp: String(second - skew + 2) }),
          );
          const timestamp = String(first.second - skew + 2);
          expectAccepted(first.exchange, `a request with a timestamp ${skew - 2} s old`);
          const control = await inSecond(grid, () => probeRequest(ctx, credentials, { timestamp }), 1);
          const replay = await sendIn(grid, control.second, () =>
            probeRequest(ctx, credentials, { nonce, timestamp, deliberate: true }),
          );
          const onTime = control.second === first.second + 2 && replay.second === first.second + 2;
          if (!(onTime && control.sure && replay.sure)) {
            if (attempt < ATTEMPTS) {
              ctx.log(
                `the replay was to reach the server in second ${first.second + 2}; on this busy machine it may not have (round trips ${control.exchange.ms} and ${replay.exchange.ms} ms): again with a new nonce`,
              );
              continue;
            }
            expect(
              false,
              `in ${ATTEMPTS} tries the replay could not be sent surely inside server second ${first.second + 2} (the second its timestamp is exactly ${skew} s old)`,
              [replay.exchange],
            );
          }
          // The control: the same timestamp with a fresh nonce is still inside the window.
          expectAccepted(control.exchange, `a fresh nonce with the same timestamp, now exactly ${skew} s old`);
          expectCode(
            ctx,
            replay.exchange,
            'replay_detected',
            `the nonce replayed with its timestamp exactly ${skew} s old`,
          );
          return;
        }
      },
    },
    {
      id: 'partner.auth.nonce.length-bounds',
      rules: ['spec:partner#/x-signing/nonce', 'spec:partner#/components/securitySchemes/ServiceNonce'],
      name: 'nonces of 1 and 128 printable characters are accepted; 129 characters is 401 invalid_signature',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const make = (n: number) => `${randomUUID()}${'~'.repeat(200)}`.slice(0, n);
        expectAccepted(await probeRequest(ctx, credentials, { nonce: make(128) }), 'a nonce of 128 characters');
        expectCode(
          ctx,
          await probeRequest(ctx, credentials, { nonce: make(129), deliberate: true }),
          'invalid_signature',
          'a nonce of 129 characters',
        );
        // One character: a fresh one per run, though another run of this credential may have used it.
        const one = await probeRequest(ctx, credentials, {
          nonce: String.fromCharCode(0x21 + Math.floor(Math.random() * 94)),
          deliberate: true,
        });
        if (one.status === 401 && (jsonOf(one) as { code?: unknown } | undefined)?.code === 'replay_detected')
          ctx.log('a one-character nonce was already used by this credential (replay_detected: its form was accepted)');
        else expectAccepted(one, 'a nonce of 1 character');
      },
    },
    {
      id: 'partner.lists.limit.bounds',
      rules: [
        'spec:partner#/components/parameters/Limit',
        'spec:partner:listEvents#/parameters',
        'spec:partner#/info/description',
      ],
      name: 'every list answers limit at its minimum and maximum (at most that many rows) and refuses one past the maximum with 400 validation_error',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const all = limitedLists(ctx);
        expect(all.length > 0, 'the contract documents no list with a bounded limit');
        // Three reads per list: with a default quota, as many lists as the window affords, a
        // different slice for each seed.
        const plan = plannedRuns(ctx, all.length, { credentials, cost: { reporting: 3 } });
        const start = Math.abs(ctx.fc.seed) % all.length;
        const lists =
          plan.runs >= all.length ? all : Array.from({ length: plan.runs }, (_, i) => all[(start + i) % all.length]!);
        if (lists.length < all.length)
          ctx.log(
            `${lists.length} of ${all.length} lists (${lists.map((l) => l.op.operationId).join(', ')}): ${plan.why ?? ''}`,
          );
        const refused: string[] = [];
        for (const { op, min, max } of lists) {
          const send = (limit: number, deliberate = false) =>
            ctx.http.signed({
              target: `${op.path}?limit=${limit}`,
              credentials,
              operation: { method: op.method, path: op.path },
              rateClass: op.rateClass,
              deliberate,
            });
          const low = await send(min);
          if (low.status === 403) {
            refused.push(`${op.operationId} (needs ${op.scopes.join(', ')})`);
            continue;
          }
          for (const [limit, e] of [
            [min, low],
            [max, await send(max)],
          ] as const) {
            expectStatus(e, 200, `${op.path}?limit=${limit} (the documented ${limit === min ? 'minimum' : 'maximum'})`);
            const body = jsonOf(e) as { data?: unknown[]; events?: unknown[] };
            const rows = body.data ?? body.events;
            expect(
              Array.isArray(rows) && rows.length <= limit,
              `${op.path}?limit=${limit} answered ${Array.isArray(rows) ? rows.length : 'no'} rows`,
              [e],
            );
          }
          expectCode(
            ctx,
            await send(max + 1, true),
            'validation_error',
            `${op.path}?limit=${max + 1} (one past the documented maximum ${max})`,
          );
        }
        if (refused.length === lists.length)
          throw new CheckSkipped(
            `a credential with the scopes of the lists (${[...new Set(lists.flatMap((l) => l.op.scopes))].join(', ')}), or --admin-token`,
          );
        if (refused.length > 0) ctx.log(`not tried, the credential lacks their scope: ${refused.join(', ')}`);
      },
    },
  ],
};
