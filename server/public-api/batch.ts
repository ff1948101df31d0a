// POST /api/batch: each entry goes through the same PublicReads call as its single-call
// equivalent and gets that call's status and body. Whole-request failures (the shape, more than
// 20 entries, duplicate ids) are 400 before anything runs; an entry's own failure stays its own.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/public.d.ts';
import { ApiError, errorBodyOf, type ErrorDetail } from '../http/errors.ts';
import { batchCatalogue, batchOps, MAX_BATCH_OPERATIONS, type BatchOpName } from './batch-catalogue.ts';
import type { HandlerMap, PublicCalls, PublicDeps, Viewer } from './context.ts';
import type { PublicReads } from './reads-service.ts';

type Schemas = components['schemas'];
type Result = Schemas['BatchResult'];

export interface BatchContext {
  viewer: Viewer | undefined;
  /** The rate limit; absent means unlimited. */
  calls: PublicCalls | undefined;
  requestId: string | undefined;
  log: (message: string, err?: unknown) => void;
}

interface Entry {
  id: string;
  op: string;
  params: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entries, or ApiError `validation_error` for a request that cannot run at all. */
export function parseBatch(body: unknown): Entry[] {
  const operations = isObject(body) ? body.operations : undefined;
  if (!Array.isArray(operations))
    throw new ApiError('validation_error', 'Request is invalid: /body/operations must be an array', [
      { path: '/body/operations', message: 'must be an array' },
    ]);
  if (operations.length === 0 || operations.length > MAX_BATCH_OPERATIONS) {
    throw new ApiError(
      'validation_error',
      `A batch holds 1 to ${MAX_BATCH_OPERATIONS} operations, got ${operations.length}`,
      [{ path: '/body/operations', message: `must have 1 to ${MAX_BATCH_OPERATIONS} items` }],
    );
  }
  const details: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  operations.forEach((o: unknown, i) => {
    const path = `/body/operations/${i}`;
    if (!isObject(o)) return void details.push({ path, message: 'must be an object with id, op and params' });
    if (typeof o.id !== 'string' || o.id.length < 1 || o.id.length > 128)
      details.push({ path: `${path}/id`, message: 'must be a string of 1 to 128 characters' });
    else if (seen.has(o.id))
      details.push({ path: `${path}/id`, message: `duplicates the id of /body/operations/${seen.get(o.id)}` });
    else seen.set(o.id, i);
    if (typeof o.op !== 'string' || o.op === '')
      details.push({ path: `${path}/op`, message: 'must be a non-empty string' });
    if (!isObject(o.params)) details.push({ path: `${path}/params`, message: 'must be an object' });
  });
  if (details.length > 0) {
    const duplicate = details.some((d) => d.message.startsWith('duplicates'));
    const message = duplicate
      ? 'Batch operation ids must be unique within the request; nothing was run'
      : `Request is invalid: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`;
    throw new ApiError('validation_error', message, details);
  }
  return operations as Entry[];
}

async function dispatch(
  reads: PublicReads,
  op: BatchOpName,
  params: Record<string, unknown>,
  viewer: Viewer | undefined,
): Promise<Result['body']> {
  switch (op) {
    case 'search_domain':
      return reads.searchDomain(params as Schemas['DomainSearchRequest'], viewer);
    case 'whois_lookup':
      return reads.whoisLookup(params as Schemas['WhoisRequest']);
    case 'tld_registration_price': {
      const p = params as Schemas['TldPriceParams'];
      return reads.tldPrice({ tld: p.tld, ...(p.op ? { action: p.op } : {}) });
    }
    case 'tld_requirements':
      return reads.tldMetadata(params as Schemas['TldRequirementsParams']);
  }
}

async function runEntry(reads: PublicReads, entry: Entry, index: number, ctx: BatchContext): Promise<Result> {
  const { id, op } = entry;
  const fail = (err: ApiError): Result => ({ id, op, status: err.status, body: errorBodyOf(err, ctx.requestId) });
  const known = batchOps().get(op);
  if (!known) {
    return fail(
      new ApiError('validation_error', `Unknown batch operation "${op}"; see GET /api/batch`, [
        { path: `/body/operations/${index}/op`, message: `must be one of ${[...batchOps().keys()].join(', ')}` },
      ]),
    );
  }
  const problems = known.check(entry.params, `/body/operations/${index}/params`);
  if (problems.length > 0) {
    return fail(
      new ApiError(
        'validation_error',
        `Invalid params for ${op}: ${problems.map((d) => `${d.path} ${d.message}`).join('; ')}`,
        problems,
      ),
    );
  }
  try {
    return { id, op, status: 200, body: await dispatch(reads, op as BatchOpName, entry.params, ctx.viewer) };
  } catch (e) {
    if (e instanceof ApiError) {
      if (e.status >= 500) ctx.log(`batch entry ${id} (${op}) failed`, e);
      return fail(e);
    }
    ctx.log(`batch entry ${id} (${op}) failed`, e);
    return fail(new ApiError('internal_error', 'An unexpected error occurred; retry with exponential back-off'));
  }
}

/**
 * Runs the entries in order. Each counts one call against the rate limit; the request's own
 * count (taken by the pipeline) covers the first entry, so a batch of n entries costs n calls.
 */
export async function runBatch(
  reads: PublicReads,
  body: unknown,
  ctx: BatchContext,
): Promise<Schemas['BatchResponse']> {
  const entries = parseBatch(body);
  const results: Result[] = [];
  // Once the quota is spent the remaining entries answer 429 without asking again.
  let spent = false;
  for (const [i, entry] of entries.entries()) {
    if (i > 0 && ctx.calls && (spent || !(await ctx.calls.take()))) {
      spent = true;
      const err = new ApiError(
        'rate_limited',
        `The "public" rate limit was reached before operation "${entry.id}"; retry it once the window resets (see the RateLimit header)`,
      );
      results.push({ id: entry.id, op: entry.op, status: err.status, body: errorBodyOf(err, ctx.requestId) });
      continue;
    }
    results.push(await runEntry(reads, entry, i, ctx));
  }
  return { results };
}

export function batchHandlers(deps: PublicDeps, reads: PublicReads): HandlerMap {
  return {
    getBatchCatalogue: (_req, res) => void res.json(batchCatalogue()),
    runBatch: (async (req, res) => {
      const requestId = res.getHeader('x-request-id');
      const body = await runBatch(reads, req.body, {
        viewer: res.locals.viewer,
        calls: res.locals.publicCalls,
        requestId: typeof requestId === 'string' ? requestId : undefined,
        log: deps.log,
      });
      res.json(body);
    }) satisfies RequestHandler,
  };
}
