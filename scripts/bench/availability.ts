// The signed partner GET /availability through the whole pipeline, in the production profile
// (requests validated) and the sandbox profile (responses validated too), beside Prism's static
// mock of the same operation, the server's own stack alone (Express 5 and express-openapi-validator
// answering the same JSON: the ceiling of any server built on it) and a bare node:http server
// answering the same JSON. Runs alternate
// (the order rotates every round) and ratios are taken within a round, so drift of the shared
// machine shows as spread instead of skewing one target.
import { mint, signFor, signedRequest, type Credential } from './lib/partner.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { startQuietPrism } from './lib/prism.ts';
import {
  newMasterKey,
  spawnBare,
  spawnFloor,
  spawnMinimum,
  spawnServer,
  tempDir,
  type Child,
} from './lib/processes.ts';
import { listedInventory, openServerStore } from './lib/store.ts';
import { median } from './lib/table.ts';

export interface AvailabilityOptions {
  duration: number;
  rounds: number;
  connections: number;
  /** Run the production server under `node --cpu-prof`, writing the profile here. */
  profileDir?: string | undefined;
  log: (line: string) => void;
}

export interface TargetFigures {
  label: string;
  runs: LoadResult[];
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU per answer, µs (median). */
  cpuMicrosPerRequest: number;
  /** Answers that were not 200, over all runs. */
  unexpected: number;
}

/** One leg's medians over its rounds, and every answer that was not a 200. */
export function figuresOf(label: string, runs: LoadResult[]): TargetFigures {
  return {
    label,
    runs,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    cpuMicrosPerRequest: median(runs.map((r) => r.cpuMicrosPerRequest)),
    unexpected: runs.reduce(
      (n, r) =>
        n +
        r.errors +
        r.timeouts +
        Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === '200' ? 0 : c), 0),
      0,
    ),
  };
}

export interface AvailabilityResult {
  domain: string;
  targets: Record<string, TargetFigures>;
  /** Per-round ratios of the production profile, and their median. */
  ratios: Record<string, { rounds: number[]; median: number }>;
}

const PATH = '/api/partner/v1/availability';

interface Target {
  key: string;
  label: string;
  child: Child;
  credential: Credential;
  /** false: one static request, no per-request hook (the load generator's own ceiling). */
  signed: boolean;
}

export async function benchAvailability(o: AvailabilityOptions): Promise<AvailabilityResult> {
  const children: Child[] = [];
  try {
    o.log('availability: starting the production and sandbox profiles, Prism and bare node:http');
    const dataDir = tempDir('bench-prod');
    const masterKey = newMasterKey();
    const [production, sandbox, prism] = await Promise.all([
      spawnServer(
        { dataDir, masterKey, validateResponses: false },
        o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`] : [],
      ),
      spawnServer({ validateResponses: true }),
      startQuietPrism(),
    ]);
    children.push(production, sandbox, prism);
    const [prodCredential, sandboxCredential] = await Promise.all([mint(production.url), mint(sandbox.url)]);
    // A listed domain, so the handler reads the listing and its reservations. Read from the store,
    // not through search, which would build the search index in the server first.
    const store = await openServerStore({ dataDir, masterKey });
    const domain = (await listedInventory(store, 1))[0]?.domain;
    await store.close();
    if (!domain) throw new Error('no listed domain found');
    const target = `${PATH}?domain=${domain}`;
    const answer = await signedRequest(production.url, prodCredential, 'GET', target);
    if (answer.status !== 200) throw new Error(`GET ${target}: ${answer.status} ${answer.text}`);
    const [bare, floor, signature, minimum] = await Promise.all([
      spawnBare(answer.text),
      spawnFloor(answer.text),
      spawnMinimum(answer.text, tempDir('bench-signature'), 'signature'),
      spawnMinimum(answer.text, tempDir('bench-minimum')),
    ]);
    children.push(bare, floor, signature, minimum);
    // Prism checks only that the security headers are present; any credential will do.
    const anyCredential: Credential = { keyId: 'pk_test_bench', secret: 'sk_test_bench', partnerId: 'none' };
    const targets: Target[] = [
      {
        key: 'production',
        label: 'reference server, production profile (VALIDATE_RESPONSES=false)',
        child: production,
        credential: prodCredential,
        signed: true,
      },
      {
        key: 'sandbox',
        label: 'reference server, sandbox profile (responses validated)',
        child: sandbox,
        credential: sandboxCredential,
        signed: true,
      },
      { key: 'prism', label: 'Prism static mock (-v error)', child: prism, credential: anyCredential, signed: true },
      {
        key: 'floor',
        label: 'Express 5 + express-openapi-validator alone, same JSON (the stack’s ceiling)',
        child: floor,
        credential: anyCredential,
        signed: true,
      },
      {
        key: 'signature',
        label: 'the stack + only the signature check (nothing written)',
        child: signature,
        credential: anyCredential,
        signed: true,
      },
      {
        key: 'minimum',
        label: 'the stack + only the signature, nonce and count the document requires (SQLite)',
        child: minimum,
        credential: anyCredential,
        signed: true,
      },
      { key: 'bare', label: 'bare node:http, same JSON', child: bare, credential: anyCredential, signed: true },
      {
        key: 'bare_static',
        label: 'bare node:http, one static request (load-generator ceiling)',
        child: bare,
        credential: anyCredential,
        signed: false,
      },
    ];
    const run = (t: Target, duration: number) =>
      runLoad({
        url: t.child.url,
        connections: o.connections,
        duration,
        path: target,
        pid: t.child.child.pid,
        ...(t.signed
          ? { build: () => ({ headers: signFor(t.credential, 'GET', target) }) }
          : { headers: signFor(t.credential, 'GET', target) }),
      });
    o.log('availability: warming up');
    for (const t of targets) await run(t, Math.min(3, o.duration));
    const runs = new Map<string, LoadResult[]>(targets.map((t) => [t.key, []]));
    for (let round = 0; round < o.rounds; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
      for (const t of order) {
        const r = await run(t, o.duration);
        runs.get(t.key)?.push(r);
        o.log(
          `  round ${round + 1}/${o.rounds}  ${t.key.padEnd(12)} ${Math.round(r.rps).toString().padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${Math.round(r.cpuMicrosPerRequest)} µs CPU/req  ${JSON.stringify(r.statuses)}`,
        );
      }
    }
    const figures: Record<string, TargetFigures> = {};
    for (const t of targets) {
      figures[t.key] = figuresOf(t.label, runs.get(t.key) ?? []);
    }
    const ratio = (a: string, b: string) => {
      const ra = runs.get(a) ?? [];
      const rb = runs.get(b) ?? [];
      const rounds = ra.map((r, i) => r.rps / (rb[i]?.rps ?? NaN));
      return { rounds, median: median(rounds) };
    };
    const cpuRatio = (a: string, b: string) => {
      const ra = runs.get(a) ?? [];
      const rb = runs.get(b) ?? [];
      const rounds = ra.map((r, i) => r.cpuMicrosPerRequest / (rb[i]?.cpuMicrosPerRequest ?? NaN));
      return { rounds, median: median(rounds) };
    };
    return {
      domain,
      targets: figures,
      ratios: {
        production_vs_prism: ratio('production', 'prism'),
        production_vs_bare: ratio('production', 'bare'),
        sandbox_vs_prism: ratio('sandbox', 'prism'),
        sandbox_vs_production: ratio('sandbox', 'production'),
        floor_vs_prism: ratio('floor', 'prism'),
        production_vs_floor: ratio('production', 'floor'),
        // The most production_vs_floor could be here: the stack with only the required work.
        minimum_vs_floor: ratio('minimum', 'floor'),
        signature_vs_floor: ratio('signature', 'floor'),
        production_vs_minimum: ratio('production', 'minimum'),
        // Server CPU per answer, inverted: capacity on a quiet core, robust to the machine's load.
        production_vs_prism_cpu: cpuRatio('prism', 'production'),
        production_vs_bare_cpu: cpuRatio('bare', 'production'),
      },
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}
