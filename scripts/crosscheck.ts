// npm run conformance:crosscheck [-- --surface partner|public|all --only schema,idempotency --seed 42 --num-runs 15]
//
// An independent cross-check of the reference server: the conformance suite's traffic of each
// surface goes through `prism proxy generated/<surface>.openapi.json <server>` (Stoplight Prism, a
// second validator that shares no code with ours), and every violation Prism reports is collected. Exit 1
// when Prism finds an answer of the server that does not match the document (a response
// violation). Request violations are counted and printed but never fail: the suite sends
// deliberately invalid requests (missing signatures, bad cursors, unknown fields) on purpose.
//
// How Prism 5.14.2 reports (read from prism-http-server/dist/server.js and
// prism-http/dist/forwarder/index.js, and checked by sending invalid requests through it):
// every forwarded answer carries an `sl-violations` header, a JSON array of
// `{ location: ['request' | 'response', ...], severity: 'Error' | 'Warning', code, message }`
// (cut to ~8 KB and prefixed `Too many violations!` when longer). With `--errors` Prism does
// not forward a request that has any violation: it answers 401 (security) or 422 itself, 404 for a
// route the document lacks, all without the header; and it replaces an invalid upstream answer
// with a 500 problem+json. The suite would then check Prism's answers instead of the server's, and
// its deliberately invalid requests (a third of the partner traffic) would never reach the server.
// The proxy therefore runs WITHOUT `--errors`: it forwards everything unchanged and reports
// through the header, which is read here from every response of the proxy. It also runs with
// `--cors=false`, so the CORS headers the suite checks are the server's.
//
// Two relays sit around Prism (scripts/crosscheck-relay.ts) so that the server sees each request
// as the suite sent it: from the suite's client address (the public rate limit counts per client),
// with its Host, without headers Prism fills in, and with redirects answered as redirects (Prism's
// forwarder would follow them). What Prism still changes, and is reported as the suite's failures
// through the proxy, not as violations: it re-serialises JSON request bodies and re-encodes query
// strings (the partner checks that sign unusual bytes on purpose then fail the signature), and a
// request body that is not JSON under a JSON media type is answered by Prism's own HTTP layer
// (micri: 400 `invalid_json`, without the server's headers), never forwarded.
import { join } from 'node:path';
import type { Faults } from '../server/faults.ts';
import { runConformance, startReferenceServer } from '../conformance/run.ts';
import { SpecIndex } from '../conformance/spec.ts';
import { ROOT } from './contract.ts';
import { startBackRelay, startFrontRelay, type Relay, type RelayedExchange } from './crosscheck-relay.ts';
import { freePort, spawnPrism, type RunningPrism } from './mock.ts';

/** The two surfaces a partner or a public client calls; the operator API is internal. */
export type CrosscheckSurface = 'partner' | 'public';
const documentOf = (surface: CrosscheckSurface) => join(ROOT, 'generated', `${surface}.openapi.json`);

export interface PrismViolation {
  side: 'request' | 'response';
  severity: string;
  code: string;
  /** Location after the side, e.g. `body.data.0` or `query`. */
  location: string;
  message: string;
}

export interface ProxiedExchange {
  method: string;
  url: string;
  status: number;
  /** operationId in the surface's document, or `METHOD /path (not in the <surface> document)`. */
  operation: string;
  /** The suite marked the request as deliberately invalid; undefined when it went through a recorder of a check's own. */
  deliberate: boolean | undefined;
  violations: PrismViolation[];
  /** Prism cut the header: more violations than listed. */
  truncated: boolean;
}

export interface CrosscheckResult {
  surface: CrosscheckSurface;
  /**
   * Prism's "required header Location missing" on a redirect whose Location the back relay hid
   * from it (so that Prism's forwarder would not follow it): the relay's doing, not the server's.
   */
  hiddenLocations: Array<PrismViolation & { exchange: ProxiedExchange }>;
  exchanges: ProxiedExchange[];
  responseViolations: Array<PrismViolation & { exchange: ProxiedExchange }>;
  requestViolations: Array<PrismViolation & { exchange: ProxiedExchange }>;
  suite: { passed: number; failed: number; skipped: number; failures: string[] };
  seconds: number;
}

export interface CrosscheckOptions {
  /** Which document Prism validates against, and which of the suite's surfaces sends the traffic (default partner). */
  surface?: CrosscheckSurface;
  only?: string[];
  skip?: string[];
  seed: number;
  numRuns: number;
  /** Faults of the reference server (server/faults.ts), to prove the cross-check can fail. */
  faults?: Faults;
  log?: (line: string) => void;
}

/** Starts `prism proxy <surface's document> <upstream>` (report mode, see above); resolves once it listens. */
export async function startPrismProxy(
  upstream: string,
  log: (line: string) => void = () => {},
  surface: CrosscheckSurface = 'partner',
): Promise<RunningPrism> {
  // --cors=false: Prism would otherwise answer preflights itself and add CORS headers of its own
  // to every answer, and the suite checks the server's (x-cors).
  return spawnPrism(
    ['proxy', documentOf(surface), upstream, '--cors=false'],
    await freePort(),
    `proxy ${surface}`,
    log,
  );
}

/** The violations of one `sl-violations` header value. */
export function parseViolations(header: string | null): { violations: PrismViolation[]; truncated: boolean } {
  if (!header) return { violations: [], truncated: false };
  const truncated = header.startsWith('Too many violations!');
  let raw: Array<{ location?: unknown[]; severity?: string; code?: unknown; message?: string }>;
  try {
    raw = JSON.parse(truncated ? header.slice('Too many violations! '.length) : header) as typeof raw;
  } catch {
    // Cut mid-array: keep what the text still says about each entry's side.
    raw = [
      ...header.matchAll(
        /"location":\["(request|response)"((?:,"[^"]*"|,\d+)*)\],"severity":"(\w+)"(?:,"code":"?([^",]*)"?)?(?:,"message":"((?:[^"\\]|\\.)*)")?/g,
      ),
    ].map((m) => ({
      location: [
        m[1],
        ...(m[2]
          ? m[2]
              .slice(1)
              .split(',')
              .map((s) => s.replace(/"/g, ''))
          : []),
      ],
      severity: m[3],
      code: m[4],
      message: m[5] ?? '(cut by Prism)',
    }));
  }
  const violations = raw.map((v) => {
    const [side, ...rest] = (v.location ?? []).map(String);
    return {
      side: side === 'response' ? ('response' as const) : ('request' as const),
      severity: v.severity ?? 'Error',
      code: v.code === undefined ? '' : String(v.code),
      location: rest.join('.'),
      message: v.message ?? '',
    };
  });
  return { violations, truncated };
}

/** Prism's complaint that a response lacks its documented `Location` header. */
const hiddenLocation = (v: PrismViolation) => v.side === 'response' && /location/i.test(`${v.location} ${v.message}`);

/**
 * The path of a relayed request. The suite's raw-HTTP checks send targets and Host values no URL
 * parser accepts (that is what they check); those are reported by the target as sent.
 */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.replace(/^http:\/\/[^/]*/, '') || url;
  }
}

function headerValue(headers: HeadersInit | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entries = Array.isArray(headers) ? headers : Object.entries(headers);
  return entries.find(([k]) => k?.toLowerCase() === name)?.[1];
}

/**
 * Runs one surface of the conformance suite against a fresh reference server through Prism's
 * proxy of that surface's document and returns every exchange Prism saw with the violations it
 * reported. The operator API is in neither document: the suite's admin calls go to the server
 * directly.
 */
export async function crosscheck(o: CrosscheckOptions): Promise<CrosscheckResult> {
  const log = o.log ?? (() => {});
  const surface = o.surface ?? 'partner';
  const started = performance.now();
  const server = await startReferenceServer(o.faults);
  let prism: Awaited<ReturnType<typeof startPrismProxy>> | undefined;
  let back: Relay | undefined;
  let front: Relay | undefined;
  try {
    // suite → front relay → prism proxy → back relay → server (scripts/crosscheck-relay.ts says why).
    // The front relay sees every request of the run, whichever of the suite's recorders sent it.
    const seen: RelayedExchange[] = [];
    back = await startBackRelay(server.url);
    prism = await startPrismProxy(back.url, log, surface);
    front = await startFrontRelay(prism.url, (exchange) => seen.push(exchange));
    const run = await runConformance({
      baseUrl: front.url,
      adminBaseUrl: server.url,
      adminToken: server.adminToken,
      surface,
      reference: true,
      seed: o.seed,
      numRuns: o.numRuns,
      ...(o.only ? { only: o.only } : {}),
      ...(o.skip ? { skip: o.skip } : {}),
      log,
    });

    // Which requests the suite meant to be invalid: matched in order on method, URL and nonce.
    const deliberate = new Map<string, boolean[]>();
    for (const e of run.exchanges) {
      const key = `${e.method} ${e.url} ${headerValue(e.requestHeaders, 'x-service-nonce') ?? ''}`;
      deliberate.set(key, [...(deliberate.get(key) ?? []), e.deliberate === true]);
    }
    const spec = SpecIndex.load();
    const relayed: Array<PrismViolation & { exchange: ProxiedExchange }> = [];
    const exchanges: ProxiedExchange[] = seen.map((s) => {
      const path = pathOf(s.url);
      const op = spec.match(surface, s.method, path);
      const { violations, truncated } = parseViolations(s.violations);
      const nonce = s.requestHeaders['x-service-nonce'];
      const exchange: ProxiedExchange = {
        method: s.method,
        url: s.url,
        status: s.status,
        operation: op?.operationId ?? `${s.method} ${path} (not in the ${surface} document)`,
        deliberate: deliberate.get(`${s.method} ${s.url} ${typeof nonce === 'string' ? nonce : ''}`)?.shift(),
        violations: violations.filter((v) => !(s.relocated && hiddenLocation(v))),
        truncated,
      };
      // The Location the back relay hid from Prism so that it would not follow the redirect.
      if (s.relocated) relayed.push(...violations.filter(hiddenLocation).map((v) => ({ ...v, exchange })));
      return exchange;
    });
    const all = exchanges.flatMap((exchange) => exchange.violations.map((v) => ({ ...v, exchange })));
    const count = (status: string) => run.results.filter((r) => r.status === status).length;
    return {
      surface,
      exchanges,
      hiddenLocations: relayed,
      responseViolations: all.filter((v) => v.side === 'response'),
      requestViolations: all.filter((v) => v.side === 'request'),
      suite: {
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
        failures: run.results
          .filter((r) => r.status === 'failed')
          .map((r) => `${r.family}: ${r.check}: ${(r.message ?? '').split('\n')[0]!.slice(0, 200)}`),
      },
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await front?.close();
    await prism?.stop();
    await back?.close();
    await server.stop();
  }
}

/** The printed summary: exchanges, then violations grouped by side, operation and kind. */
export function summarize(result: CrosscheckResult): string {
  const lines: string[] = [];
  const deliberate = result.requestViolations.filter((v) => v.exchange.deliberate === true).length;
  lines.push(
    `cross-check of the ${result.surface} document through prism proxy: ${result.exchanges.length} exchanges proxied in ${result.seconds.toFixed(1)} s`,
  );
  lines.push(
    `  suite through the proxy: ${result.suite.passed} passed, ${result.suite.failed} failed, ${result.suite.skipped} skipped`,
  );
  for (const f of result.suite.failures) lines.push(`    failed: ${f}`);
  lines.push(`  response violations: ${result.responseViolations.length}`);
  lines.push(
    `  request violations: ${result.requestViolations.length} (${deliberate} on deliberately invalid requests, expected; ${result.requestViolations.length - deliberate} on others)`,
  );
  const truncated = result.exchanges.filter((e) => e.truncated).length;
  if (truncated) lines.push(`  ${truncated} exchange(s) had more violations than Prism's header holds`);
  const groups = new Map<string, { n: number; statuses: Set<number>; example: string }>();
  for (const v of [...result.responseViolations, ...result.requestViolations]) {
    const tag = v.side === 'request' ? (v.exchange.deliberate ? 'request (deliberate)' : 'request') : 'RESPONSE';
    const key = `${tag}  ${v.exchange.operation}  ${v.severity} ${v.code || '-'} ${v.location || '(whole)'}`;
    const group = groups.get(key) ?? { n: 0, statuses: new Set<number>(), example: v.message };
    group.n++;
    group.statuses.add(v.exchange.status);
    groups.set(key, group);
  }
  if (groups.size) lines.push('  by side, operation and kind:');
  for (const [key, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`    ${key}  ×${g.n}  [status ${[...g.statuses].join(',')}]  ${g.example.slice(0, 160)}`);
  }
  return lines.join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const list = (name: string) =>
    value(name)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const seed = Number(value('--seed') ?? Date.now() % 2_147_483_647);
  const numRuns = Number(value('--num-runs') ?? 25);
  console.log(`cross-check: seed ${seed}, ${numRuns} runs per property`);
  const only = list('--only');
  const skip = list('--skip');
  const asked = value('--surface') ?? 'all';
  if (!['partner', 'public', 'all'].includes(asked)) {
    console.error(`--surface is partner, public or all, not ${asked}`);
    process.exit(2);
  }
  const surfaces: CrosscheckSurface[] = asked === 'all' ? ['partner', 'public'] : [asked as CrosscheckSurface];
  let failed = 0;
  // One surface after the other: each has its own server and proxy, and neither slows the other.
  for (const surface of surfaces) {
    const result = await crosscheck({
      surface,
      seed,
      numRuns,
      ...(only ? { only } : {}),
      ...(skip ? { skip } : {}),
      ...(args.includes('--verbose') ? { log: (line: string) => console.log(line) } : {}),
    });
    console.log(summarize(result));
    if (result.responseViolations.length > 0) {
      failed++;
      console.error(
        `\ncross-check FAILED: Prism found ${result.responseViolations.length} answer(s) of the server that do not match generated/${surface}.openapi.json\n`,
      );
    } else {
      console.log(`\ncross-check passed: Prism found no answer of the server that violates the ${surface} document\n`);
    }
  }
  if (failed > 0) process.exit(1);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
}
