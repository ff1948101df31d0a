// `--report bundle=DIR`: what an operator hands to the team that owns a failing deployment. For
// each failed check, a directory with its exchanges as HAR 1.2 and failure.txt (the rule, the
// message, the seed and the counterexample); at the top, bundle.json and replay.mjs, which sends
// the recorded requests again (signed afresh) against any deployment and prints what differs.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADERS } from '../../client/protocol/index.ts';
import { jsonOf, type Exchange, type HttpRecorder } from '../http.ts';
import { rerunCommand } from '../report.ts';
import type { CheckResult } from '../runner.ts';
import { SpecIndex } from '../spec.ts';
import { har, toHarEntry, type HarEntry } from './har.ts';

const REPLAY = fileURLToPath(new URL('./replay.mjs', import.meta.url));
/** The transport replay.mjs imports (the kit's own, with its one resend rule). */
const TRANSPORT = fileURLToPath(new URL('./transport.mjs', import.meta.url));

export interface BundleMeta {
  baseUrl: string;
  seed: number;
  numRuns: number;
  /** The contract's id shapes (idPatterns), for the replay. */
  idPatterns?: string[];
  /** How the kit was invoked (invocation.ts), for the rerun lines; default `npm run conformance --`. */
  rerun?: string;
}

export interface BundledCheck {
  id: string;
  title: string;
  family: string;
  rules: string[];
  dir: string;
  known: boolean;
  seed?: number;
  counterexample?: string;
  exchanges: number;
  /** The environment the replay of this check reads. */
  needs: string[];
  replay: string;
}

const keyIdOf = (e: Exchange) =>
  Object.entries(e.requestHeaders).find(([k]) => k.toLowerCase() === HEADERS.keyId.toLowerCase())?.[1];

/** The command that replays one check of a bundle written to `dir`. */
export function replayCommand(dir: string, id: string): string {
  return `node ${join(dir, 'replay.mjs')} --base-url <URL> --check ${id}`;
}

/**
 * The exchanges a check's replay needs, in order: the operator calls that minted its credentials,
 * what its family sent earlier with those credentials (fixtures), then its own.
 */
export function exchangesOf(result: CheckResult, all: Exchange[]): Array<{ exchange: Exchange; context: boolean }> {
  const own = all.filter((e) => e.checkId === result.id && e.family === result.family);
  if (own.length === 0) return [];
  const keys = new Set(own.map(keyIdOf).filter((k): k is string => k !== undefined));
  const first = all.indexOf(own[0]!);
  const context = all.slice(0, first).filter((e) => {
    if (e.operator && /\/credentials$/.test(new URL(e.url).pathname)) {
      const minted = (jsonOf(e) as { key_id?: unknown } | undefined)?.key_id;
      return typeof minted === 'string' && keys.has(minted);
    }
    if (e.family !== result.family) return false;
    if (e.operator) return true;
    const key = keyIdOf(e);
    return key !== undefined && keys.has(key);
  });
  return [
    ...context.map((exchange) => ({ exchange, context: true })),
    ...own.map((exchange) => ({ exchange, context: false })),
  ];
}

export function harEntriesOf(
  result: CheckResult,
  all: Exchange[],
  http: Pick<HttpRecorder, 'credentials' | 'clockOffsetMs'>,
): HarEntry[] {
  const picked = exchangesOf(result, all);
  // The check's credentials numbered in order of first use: SERVICE_KEY_ID, SERVICE_KEY_ID_2, ...
  const ordinals = new Map<string, number>();
  for (const { exchange } of picked) {
    const key = keyIdOf(exchange);
    if (key !== undefined && http.credentials.has(key) && !ordinals.has(key)) ordinals.set(key, ordinals.size + 1);
  }
  return picked.map(({ exchange, context }) => {
    const key = keyIdOf(exchange);
    const known = key !== undefined ? http.credentials.get(key) : undefined;
    return toHarEntry(exchange, {
      family: exchange.family,
      checkId: exchange.checkId,
      ...(context ? { context: true } : {}),
      ...(exchange.operator ? { operator: true } : {}),
      ...(exchange.deliberate ? { deliberate: true } : {}),
      ...(exchange.signing ? { signing: exchange.signing } : {}),
      ...(known && key !== undefined
        ? { credential: { ordinal: ordinals.get(key)!, ...(known.scopes ? { scopes: known.scopes } : {}) } }
        : {}),
      clockOffsetMs: http.clockOffsetMs,
    });
  });
}

function needsOf(entries: HarEntry[]): string[] {
  const out = new Set<string>();
  const minted = entries.some((e) => e._conformance.operator && /\/credentials$/.test(new URL(e.request.url).pathname));
  for (const e of entries) {
    const n = e._conformance.credential?.ordinal;
    if (n !== undefined)
      out.add(
        minted
          ? 'ADMIN_TOKEN'
          : n === 1
            ? 'SERVICE_KEY_ID, SERVICE_SECRET'
            : `SERVICE_KEY_ID_${n}, SERVICE_SECRET_${n}`,
      );
    if (e._conformance.operator) out.add('ADMIN_TOKEN');
    if (e.request.postData?.text.includes('${OAUTH_PASSWORD}')) out.add('OAUTH_PASSWORD');
  }
  return [...out];
}

/**
 * The id shapes of the contract: every schema `pattern` of the bundled documents that starts
 * with a literal lowercase prefix and an underscore (`^ord_[0-9A-Za-z]{6,40}$`,
 * `^pk_(test|live)_…`), secrets (`sk_`) excepted. The replay learns only values of these shapes
 * (and opaque tokens in members that carry one) as renamed identifiers.
 */
export function idPatterns(documents: SpecIndex['documents']): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string' && /^\^[a-z]+_/.test(value) && !value.startsWith('^sk_'))
          found.add(value);
        else walk(value);
      }
    }
  };
  walk(documents);
  return [...found].sort();
}

const dirName = (id: string) => id.replace(/[^a-z0-9.-]/gi, '_');

export async function writeBundle(
  dir: string,
  results: CheckResult[],
  http: Pick<HttpRecorder, 'exchanges' | 'credentials' | 'clockOffsetMs'>,
  meta: BundleMeta,
): Promise<BundledCheck[]> {
  await mkdir(dir, { recursive: true });
  const failed = results.filter((r) => r.status === 'failed');
  const checks: BundledCheck[] = [];
  for (const r of failed) {
    const entries = harEntriesOf(r, http.exchanges, http);
    const sub = dirName(r.id);
    await mkdir(join(dir, sub), { recursive: true });
    await writeFile(
      join(dir, sub, 'exchanges.har'),
      `${JSON.stringify(har(entries, `${r.id}: ${r.check}`), null, 1)}\n`,
    );
    const needs = needsOf(entries);
    const replay = replayCommand(dir, r.id);
    await writeFile(
      join(dir, sub, 'failure.txt'),
      [
        `${r.id}: ${r.check}`,
        `family: ${r.family}`,
        `rules: ${r.rules.join('; ')}`,
        ...(r.baseline?.verdict === 'known' ? [`known failure (baseline): ${r.baseline.reason}`] : []),
        `seed: ${r.seed ?? meta.seed}${r.counterexample ? `\ncounterexample: ${r.counterexample}` : ''}`,
        `rerun the check: ${rerunCommand(meta.rerun, meta, r)}`,
        `replay the exchanges: ${needs.map((n) => `${n.split(',')[0]}=…`).join(' ')} ${replay}`,
        `(${entries.length} exchanges in exchanges.har, ${entries.filter((e) => e._conformance.context).length} of them setup)`,
        '',
        r.message ?? '',
        '',
      ].join('\n'),
    );
    checks.push({
      id: r.id,
      title: r.check,
      family: r.family,
      rules: r.rules,
      dir: sub,
      known: r.baseline?.verdict === 'known',
      ...(r.seed !== undefined ? { seed: r.seed } : {}),
      ...(r.counterexample !== undefined ? { counterexample: r.counterexample } : {}),
      exchanges: entries.length,
      needs,
      replay,
    });
  }
  await writeFile(
    join(dir, 'bundle.json'),
    `${JSON.stringify(
      {
        kit: 'domain-sales-conformance',
        createdAt: new Date().toISOString(),
        ...meta,
        idPatterns: meta.idPatterns ?? idPatterns(SpecIndex.load().documents),
        checks,
      },
      null,
      2,
    )}\n`,
  );
  await copyFile(REPLAY, join(dir, 'replay.mjs'));
  await copyFile(TRANSPORT, join(dir, 'transport.mjs'));
  await writeFile(
    join(dir, 'README.txt'),
    [
      `Conformance failures of ${meta.baseUrl} (seed ${meta.seed}): ${checks.length} check${checks.length === 1 ? '' : 's'}.`,
      '',
      'Each directory holds one failed check: failure.txt (rule, message, seed, counterexample) and',
      "exchanges.har (HAR 1.2: open it in a browser's developer tools or any HAR viewer).",
      '',
      'Replay against any deployment (Node 20, nothing to install); signed requests are signed again',
      'with a fresh timestamp and nonce, and what differs from the recorded answers is printed:',
      '',
      '  SERVICE_KEY_ID=pk_test_… SERVICE_SECRET=sk_test_… node replay.mjs --base-url https://staging.example.com',
      '  ADMIN_TOKEN=… node replay.mjs --base-url URL --check <ID>     (checks that minted their own credentials)',
      '',
      'Exit code 0: the failure reproduces (every answer as recorded); 1: it does not (some answer differs:',
      'fixed, or failing another way); 2: cannot replay (an argument or a credential is missing).',
      'Secrets are never printed: withheld members, secret members and the credentials given are shown as ${REDACTED}.',
      '',
      ...checks.map((c) => `  ${c.id}  (${c.exchanges} exchanges; needs ${c.needs.join(', ') || 'nothing'})`),
      '',
    ].join('\n'),
  );
  return checks;
}
