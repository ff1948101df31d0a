// express-openapi-validator over one bundled document: requests always, responses unless
// switched off (production may trade that check for speed). Security is ours, not its.
import { createRequire } from 'node:module';
import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';

export function openApiValidator(document: Record<string, unknown>, options: { validateResponses: boolean }): RequestHandler[] {
  keepCompiledRoutes();
  keepRouteLookups();
  // The validator annotates the document it is given; each instance gets its own copy.
  const copy = structuredClone(document);
  allowReservedQueryCharacters(copy);
  absoluteOAuthUrls(copy);
  const apiSpec = copy as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];
  return [strictIntegerQuery(document), ...(OpenApiValidator.middleware({
    apiSpec,
    // Parameters are text and always coerced by the validator; a JSON body is typed, so
    // `"expected_price": "250000"` or `true` is a validation_error, never silently converted.
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: false,
    $refParser: { mode: 'bundle' },
  }) as RequestHandler[])];
}

/**
 * The validator coerces query text to the parameter's type the way JavaScript does, so
 * `limit=1e2`, `limit=0x10` or `limit= 7` would pass as integers. An integer parameter is written
 * in decimal digits (RFC 8259 §6 grammar, no fraction or exponent); anything else is refused here
 * with the validator's own 400, before it can be coerced.
 */
function strictIntegerQuery(document: Record<string, unknown>): RequestHandler {
  const byOperation = integerQueryParameters(document);
  return (req, res, next) => {
    const names = byOperation.get(res.locals.operation?.operationId ?? '');
    if (!names) return next();
    const errors: Array<{ path: string; message: string }> = [];
    for (const name of names) {
      const value = req.query[name];
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v === 'string' && !/^-?(0|[1-9]\d*)$/.test(v)) errors.push({ path: `.query.${name}`, message: 'must be an integer in decimal digits' });
      }
    }
    if (errors.length === 0) return next();
    next(Object.assign(new Error('Bad request'), { status: 400, errors }));
  };
}

type ParameterObject = { $ref?: string; in?: string; name?: string; schema?: { type?: unknown; $ref?: string } };

function integerQueryParameters(document: Record<string, unknown>): Map<string, string[]> {
  const components = (document.components ?? {}) as { parameters?: Record<string, ParameterObject>; schemas?: Record<string, { type?: unknown }> };
  const resolve = (p: ParameterObject): ParameterObject => (p.$ref ? (components.parameters?.[p.$ref.split('/').pop() ?? ''] ?? {}) : p);
  const isInteger = (schema: ParameterObject['schema']): boolean => {
    const s = schema?.$ref ? components.schemas?.[schema.$ref.split('/').pop() ?? ''] : schema;
    return s?.type === 'integer' || (Array.isArray(s?.type) && s.type.includes('integer'));
  };
  const out = new Map<string, string[]>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    const shared = ((item.parameters as ParameterObject[] | undefined) ?? []).map(resolve);
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !('operationId' in op)) continue;
      const own = (((op as { parameters?: ParameterObject[] }).parameters ?? [])).map(resolve);
      const names = [...shared, ...own].filter((p) => p.in === 'query' && isInteger(p.schema)).map((p) => p.name as string);
      if (names.length) out.set(String((op).operationId), names);
    }
  }
  return out;
}

/**
 * The server reads a raw query by its own rule (x-signing `canonical-query`: split on `&` and the first `=`,
 * decode `%XX` escapes only), under which a literal `'`, `(`, `!`, `+`, `:` or `/` in a value is
 * unambiguous. The validator would refuse such values unless a parameter is `allowReserved`
 * (a hint to clients on how to serialise), which turns away requests the contract accepts,
 * among them what the partner client sends for a search text with an apostrophe. So every
 * query parameter of the validator's copy of the document allows them.
 */
function allowReservedQueryCharacters(document: Record<string, unknown>): void {
  const mark = (parameter: unknown) => {
    if (parameter && typeof parameter === 'object' && (parameter as { in?: unknown }).in === 'query') {
      (parameter as { allowReserved?: boolean }).allowReserved = true;
    }
  };
  const components = (document.components ?? {}) as { parameters?: Record<string, unknown> };
  for (const parameter of Object.values(components.parameters ?? {})) mark(parameter);
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const parameter of (item.parameters as unknown[] | undefined) ?? []) mark(parameter);
    for (const op of Object.values(item)) {
      if (op && typeof op === 'object' && Array.isArray((op as { parameters?: unknown }).parameters)) {
        for (const parameter of (op as { parameters: unknown[] }).parameters) mark(parameter);
      }
    }
  }
}

/**
 * The public document gives its OAuth endpoints as references relative to the server (one
 * document for every deployment); the validator's meta-schema insists on absolute URIs there.
 * It never uses them (security is ours), so its copy gets them resolved against a placeholder.
 */
function absoluteOAuthUrls(document: Record<string, unknown>): void {
  const schemes = ((document.components ?? {}) as { securitySchemes?: Record<string, { flows?: Record<string, Record<string, unknown>> }> }).securitySchemes ?? {};
  for (const scheme of Object.values(schemes)) {
    for (const flow of Object.values(scheme.flows ?? {})) {
      for (const field of ['authorizationUrl', 'tokenUrl', 'refreshUrl']) {
        const value = flow[field];
        if (typeof value === 'string') flow[field] = new URL(value, 'https://deployment.invalid').href;
      }
    }
  }
}

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => unknown;

/** `require` as express-openapi-validator itself resolves: its own modules and its own path-to-regexp. */
export const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));

type Next = (err?: unknown) => void;
type Middleware = (req: Record<string, unknown> & { method: string; baseUrl: string; originalUrl: string }, res: unknown, next: Next) => unknown;
type ApplyMetadata = ((context: unknown, responseApiDoc: unknown) => Middleware) & { keeping?: true };

/** Route lookups kept per validator instance (the oldest dropped first): bounded whatever paths requests name. */
const LOOKUPS_KEPT = 1000;

/**
 * The validator's metadata step (5.x, middlewares/openapi.metadata.js) finds a request's
 * operation by listing every documented path and trying them in turn, on every request: about a
 * twentieth of a signed GET's CPU. What it finds depends only on the method and the path (its
 * app's routing settings are fixed), so the outcome of a match (`req.openapi`, which it also
 * sets as `req.params`) is kept per method, mount point and path, and given again as a copy. A
 * request it refuses (404, 405) or ignores is never kept: it runs the step itself every time.
 */
export function keepRouteLookups(): void {
  const module = fromValidator('./middlewares/openapi.metadata.js') as { applyOpenApiMetadata: ApplyMetadata };
  if (module.applyOpenApiMetadata.keeping) return;
  const apply = module.applyOpenApiMetadata;
  const keeping: ApplyMetadata = (context, responseApiDoc) => {
    const lookup = apply(context, responseApiDoc);
    const kept = new Map<string, Record<string, unknown>>();
    return (req, res, next) => {
      const path = req.originalUrl;
      const query = path.indexOf('?');
      const key = `${req.method} ${req.baseUrl} ${query === -1 ? path : path.slice(0, query)}`;
      const found = kept.get(key);
      if (found) {
        const openapi = { ...found, pathParams: { ...(found.pathParams as object) } };
        req.openapi = openapi;
        req.params = openapi.pathParams;
        return next();
      }
      // Another validator (the other surface's) may have matched the request before this one.
      const before = req.openapi;
      return lookup(req, res, (err) => {
        const openapi = req.openapi as Record<string, unknown> | undefined;
        if (err === undefined && openapi && openapi !== before && typeof openapi.pathParams === 'object') {
          if (kept.size >= LOOKUPS_KEPT) kept.delete(kept.keys().next().value as string);
          kept.set(key, { ...openapi, pathParams: { ...(openapi.pathParams as object) } });
        }
        next(err);
      });
    };
  };
  keeping.keeping = true;
  module.applyOpenApiMetadata = keeping;
}

/**
 * The options as text. The validator passes `{ sensitive, strict }` (its app's routing settings)
 * for every path it tries, so that shape is keyed without serialising it each time.
 */
function optionsKey(options: Record<string, unknown> | undefined): string {
  if (options === undefined) return '{}';
  for (const name in options) if (name !== 'sensitive' && name !== 'strict') return JSON.stringify(options);
  return `${String(options.sensitive)}/${String(options.strict)}`;
}

/**
 * To find a request's operation, express-openapi-validator (5.x, middlewares/openapi.metadata.js)
 * compiles every documented path with path-to-regexp, on every request, until one matches: about
 * 4 µs a path here, so 80 µs for a path late in the document's sorted order. Compiling is a pure
 * function of the path and the options, so the compiled form is kept, once per pair, in the
 * path-to-regexp module the validator itself loads (its result is only read: `regexp.exec` and
 * `keys`). Express's router uses `match` from that module and is not affected.
 */
export function keepCompiledRoutes(): { compiled: number } {
  const module = fromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp & { kept?: Map<string, unknown> } };
  if (module.pathToRegexp.kept) return { compiled: module.pathToRegexp.kept.size };
  const compile = module.pathToRegexp;
  const kept = new Map<string, unknown>();
  const keeping: PathToRegexp & { kept?: Map<string, unknown> } = (path, options) => {
    // Only a path given as text is kept: the validator's routes, a bounded set.
    if (typeof path !== 'string') return compile(path, options);
    const key = `${optionsKey(options)} ${path}`;
    let compiled = kept.get(key);
    if (compiled === undefined) kept.set(key, (compiled = compile(path, options)));
    return compiled;
  };
  keeping.kept = kept;
  module.pathToRegexp = keeping;
  return { compiled: kept.size };
}
