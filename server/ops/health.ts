// Liveness and readiness (the public document's getHealth and getReadiness, /healthz and
// /readyz): served ahead of the public pipeline because they are `x-rate-limit: none` (never
// counted, no rate-limit headers) and must stay cheap. Readiness runs one small query that
// proves both that the store answers and that its migrations are this build's.
import { sql } from 'kysely';
import type { RequestHandler } from 'express';
import type { ApiContract } from '../contract/index.ts';
import { migrations } from '../store/migrations.ts';
import type { Store } from '../store/index.ts';

// Each check is named for what it asserts, `true` when it holds (public document, Readiness).
export const READINESS_CHECKS = ['store', 'migrations', 'search_index', 'not_draining'] as const;
export type ReadinessCheck = (typeof READINESS_CHECKS)[number];

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: Record<ReadinessCheck, boolean>;
  failed: ReadinessCheck[];
}

export interface Readiness {
  readonly draining: boolean;
  /** SIGTERM: readiness fails from now on (the `not_draining` check). */
  startDrain(): void;
  /** The search index is warm once `warming` settles successfully (until then the check fails). */
  trackSearchIndex(warming: Promise<unknown>): void;
  check(): Promise<ReadinessReport>;
}

/** How long the store may take to answer the readiness query before it counts as down. */
const STORE_TIMEOUT_MS = 2000;

export function createReadiness(store: Pick<Store, 'db' | 'dialect'>): Readiness {
  let draining = false;
  // Untracked (createApp without the server's warm-up): the index builds on the first search.
  let searchIndex = true;
  const known = Object.keys(migrations(store.dialect));
  return {
    get draining() {
      return draining;
    },
    startDrain() {
      draining = true;
    },
    trackSearchIndex(warming) {
      searchIndex = false;
      warming.then(
        () => (searchIndex = true),
        () => undefined,
      );
    },
    async check() {
      let storeOk = false;
      let migrationsOk = false;
      let timer: NodeJS.Timeout | undefined;
      try {
        const query = sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), STORE_TIMEOUT_MS);
        });
        const { rows } = await Promise.race([query, timeout]);
        storeOk = true;
        migrationsOk = rows.length === known.length && rows.every((r, i) => r.name === known[i]);
      } catch {
        // Not answering (or not in time) fails both: the migrations cannot be known either.
      } finally {
        clearTimeout(timer);
      }
      const checks = { store: storeOk, migrations: migrationsOk, search_index: searchIndex, not_draining: !draining };
      const failed = READINESS_CHECKS.filter((name) => !checks[name]);
      return { status: failed.length === 0 ? 'ready' : 'not_ready', checks, failed };
    },
  };
}

/**
 * GET (and HEAD) /healthz and /readyz. One middleware rather than an Express router: every
 * request passes this point, and a router's two routes cost each of them two pattern matches.
 */
export function healthProbes(readiness: Readiness, contract: ApiContract): RequestHandler {
  const facts = (method: string, path: string) => {
    const match = contract.match(method, path);
    if (match.kind !== 'found') throw new Error(`the public document has no ${method} ${path}`);
    return match.operation;
  };
  const health = facts('GET', '/healthz');
  const ready = facts('GET', '/readyz');
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    if (path === '/healthz') {
      res.locals.operation = health;
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json({ status: 'ok' });
      return;
    }
    if (path !== '/readyz') return next();
    res.locals.operation = ready;
    void (async () => {
      try {
        const report = await readiness.check();
        res.setHeader('Cache-Control', 'no-store');
        res.status(report.status === 'ready' ? 200 : 503).json(report);
      } catch (err) {
        next(err);
      }
    })();
  };
}
