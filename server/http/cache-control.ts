// `Cache-Control` as each operation's responses declare it (the documents' `Cache-Control`
// response headers, `Cache-Control-No-Store` among the shared headers): an answer that carries a
// secret, a token or a capability URL is `no-store`, so no cache or history keeps it. Read once
// from the contract at start-up; set on every answer of the operation, its refusals included
// (no-store on an error costs nothing, and the status is not known before the handler runs).
import type { RequestHandler } from 'express';
import type { ApiContract, ContractOperation } from '../contract/index.ts';

/** The one value an operation's responses declare for `Cache-Control` (schema `enum` of one, or `const`); undefined when none. */
export function declaredCacheControl(contract: ApiContract, operation: ContractOperation): string | undefined {
  const values = new Set<string>();
  for (const response of Object.values(operation.responses)) {
    const headers = (response.headers ?? {}) as Record<string, unknown>;
    for (const [name, raw] of Object.entries(headers)) {
      if (name.toLowerCase() !== 'cache-control') continue;
      const schema = contract.resolve(contract.resolve(raw).schema);
      const fixed =
        schema.const ?? (Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : undefined);
      if (typeof fixed !== 'string')
        throw new Error(
          `${operation.operationId}: a declared Cache-Control must have one value (enum of one or const)`,
        );
      values.add(fixed);
    }
  }
  if (values.size > 1)
    throw new Error(`${operation.operationId}: its responses declare different Cache-Control values`);
  return [...values][0];
}

/** Sets the matched operation's declared `Cache-Control` (needs `res.locals.operation`). */
export function cacheControl(contract: ApiContract): RequestHandler {
  const byOperation = new Map<string, string>();
  for (const operation of contract.operations) {
    const value = declaredCacheControl(contract, operation);
    if (value !== undefined) byOperation.set(operation.operationId, value);
  }
  return (_req, res, next) => {
    const value = res.locals.operation ? byOperation.get(res.locals.operation.operationId) : undefined;
    if (value !== undefined) res.setHeader('Cache-Control', value);
    next();
  };
}
