// Planning what a property spends. Against a deployment with default quotas (a partner credential
// has 20 writes, 60 searches and 30 other reads a minute; a public client 60 calls) a property
// that runs 25 examples would spend whole windows and make the run wait them out. A property says
// what one run costs, per rate-limit class, and whose window it spends; it then runs as many
// examples as the window has left (by the RateLimit headers of the caller's last answers), and at
// most a twentieth of the window's quota, so the checks after it find requests left; never fewer
// than a floor, so only a property that must spend more than is left waits, once. A window in
// the thousands (a credential minted with raised quotas) never limits anything.
import type { Context } from './context.ts';
import { SELF, type Credentials } from './http.ts';

export interface Spend {
  /** Whose windows: a partner credential, or the public client (undefined). */
  credentials?: Credentials | undefined;
  /** Requests of each rate-limit class one run of the property costs. */
  cost: Record<string, number>;
  /** Requests the check still makes after the property (kept out of the plan). */
  reserve?: number;
}

export interface Plan {
  runs: number;
  /** Why fewer runs than wanted, for the log. */
  why?: string;
}

const SOON_MS = 8_000;

/** The largest share of one window's quota a property plans to spend. */
const SHARE = 1 / 20;

/** The fewest examples a property runs, whatever the windows say. */
export const FLOOR_RUNS = 1;

export function plannedRuns(ctx: Context, wanted: number, spend: Spend | undefined): Plan {
  if (!spend) return { runs: wanted };
  // Public calls from a pool of client addresses (a deployment on loopback) are never short.
  if (!spend.credentials && ctx.http.clients.size > 0) return { runs: wanted };
  const caller = spend.credentials?.keyId ?? SELF;
  let runs = wanted;
  let why: string | undefined;
  for (const [cls, cost] of Object.entries(spend.cost)) {
    if (cost <= 0) continue;
    const window = ctx.http.window(caller, cls);
    if (!window) continue;
    // A window about to reset is as good as a fresh one: waiting a few seconds is cheaper than fewer runs.
    const left = Math.min(
      window.remaining + (window.resetInMs < SOON_MS ? window.limit : 0),
      Math.ceil(window.limit * SHARE),
    );
    const affordable = Math.floor(Math.max(0, left - (spend.reserve ?? 0)) / cost);
    if (affordable < runs) {
      runs = affordable;
      why = `the "${cls}" window has ${window.remaining} of ${window.limit} requests left for the next ${Math.ceil(window.resetInMs / 1000)} s, a property takes at most ${Math.round(SHARE * 100)} % of a window, and a run costs ${cost}`;
    }
  }
  const floor = Math.min(FLOOR_RUNS, wanted);
  return runs >= wanted ? { runs: wanted } : { runs: Math.max(floor, runs), ...(why ? { why } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Patience: how long to wait for what a deployment does on its own time (a webhook delivery, a
// retry). A fixed wait cries wolf on a busy machine or a slow network, where everything takes
// longer, so a wait is the contract's own bound (when it states one) plus a number of the run's
// slow round trips, as measured on its exchanges so far.

/** The run's slow round trip: the 90th percentile of its exchanges' durations (ms), at least 1 ms. */
export function slowRoundTripMs(exchanges: ReadonlyArray<{ ms: number }>): number {
  if (exchanges.length === 0) return 1;
  const sorted = exchanges.map((e) => e.ms).sort((a, b) => a - b);
  return Math.max(1, sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] ?? 1);
}

/**
 * A wait of `baseMs` (the contract's bound, or the kit's allowance where the contract states
 * none) plus `roundTrips` of the run's slow round trips.
 */
export function patienceMs(ctx: Pick<Context, 'http'>, baseMs: number, roundTrips: number): number {
  return Math.round(baseMs + roundTrips * slowRoundTripMs(ctx.http.exchanges));
}
