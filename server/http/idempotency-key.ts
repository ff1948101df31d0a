// POST /orders without Idempotency-Key is refused before the body is validated (x-signing
// `check-order`). Which operations need the header is read from the spec.
import type { RequestHandler } from 'express';
import { ApiError } from './errors.ts';

export function requireIdempotencyKey(operationIds: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const op = res.locals.operation;
    if (op && operationIds.has(op.operationId) && !req.get('idempotency-key')) {
      return next(new ApiError('missing_idempotency_key', `${op.method} ${op.path} requires an Idempotency-Key header (1 to 255 characters, one per logical operation)`));
    }
    next();
  };
}

/**
 * Operations of a bundled document that declare an Idempotency-Key header parameter; with
 * `required`, only those where the parameter is required (POST /orders).
 */
export function operationsWithIdempotencyKey(document: Record<string, unknown>, options: { required: boolean }): Set<string> {
  const out = new Set<string>();
  const paths = (document.paths ?? {}) as Record<string, Record<string, { operationId?: string; parameters?: Array<Record<string, unknown>> }>>;
  const components = ((document.components ?? {}) as { parameters?: Record<string, Record<string, unknown>> }).parameters ?? {};
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      for (const raw of op.parameters ?? []) {
        const ref = typeof raw.$ref === 'string' ? raw.$ref.split('/').pop() : undefined;
        const param = ref ? components[ref] : raw;
        const isKey = param?.in === 'header' && String(param.name).toLowerCase() === 'idempotency-key';
        if (isKey && (!options.required || param.required === true) && op.operationId) out.add(op.operationId);
      }
    }
  }
  return out;
}
