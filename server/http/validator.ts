// Every request, and (unless switched off: production may trade that check for speed) every
// response, checked against the contract by express-openapi-validator, used through its public
// options only. The pipeline has already matched the operation in the contract index, so each
// operation gets a validator over a document of that one operation: the validator's own lookup
// then tries one path, not the whole document, and routing is ours alone. Security is ours too.
import * as OpenApiValidator from 'express-openapi-validator';
import type { Request, RequestHandler } from 'express';
import { atPointer, type ApiContract, type ContractOperation, type Json } from '../contract/index.ts';
import { isDateTime, isFullDate } from '../domain/calendar.ts';
import { inOrder } from './in-order.ts';

type ApiSpec = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

/**
 * Each operation's validator, kept per document (the contract index loads each document once per
 * process) and per mode. Building one costs the validator's set-up, paid once per `middleware()`
 * call and not skippable through its options: it compiles the OpenAPI 3.1 meta-schema even when
 * told not to check the document (`validateApiSpec: false` only stops it from calling the
 * result), bundles and preprocesses the document, and later creates its Ajv instances and compiles
 * the operation's schemas. One validator per document instead would pay the set-up once but route
 * every request a second time, over every path of the document (bench/README.md has the figures).
 * So a production process builds them all just after it starts (`warmValidators`), and an
 * operation's first request pays only what the validator leaves to that request.
 */
const builtFor = new WeakMap<object, Map<string, RequestHandler>>();

/** Every validation step made in this process (bounded: one per document and mode), for `warmValidators`. */
const steps = new Map<
  object,
  Map<string, { contract: ApiContract; build: (operation: ContractOperation) => boolean }>
>();

/** Told of an answer that breaks the contract after a change may have been committed. */
export type ContractDefectLog = (
  req: Request,
  detail: { operationId: string; status: number; errors: unknown },
) => void;

export interface ValidatorOptions {
  validateResponses: boolean;
  /**
   * Where a response-validation failure of a method that may change state is reported (the
   * documents' InternalError description): such an answer is sent as the handler wrote it, since
   * its change is committed, and logged as a contract defect. A safe method's is a 500.
   */
  onContractDefect?: ContractDefectLog;
  /** Test-only (server/faults.ts `unknown-query-ignored`): undocumented query parameters pass. */
  ignoreUnknownQuery?: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The validation step of a surface: the matched operation's validator (built on its first
 * request, or by `warmValidators`, and kept), after the strict integer rule. Needs
 * `res.locals.operation`; a request without one is not this step's to judge (the unmatched-route
 * answer comes before it).
 */
export function openApiValidator(contract: ApiContract, options: ValidatorOptions): RequestHandler {
  let built = builtFor.get(contract.document);
  if (!built) builtFor.set(contract.document, (built = new Map()));
  const kept = built;
  const mode = `${options.validateResponses ? 'responses' : 'requests'}${options.ignoreUnknownQuery ? ' lenient-query' : ''}`;
  // A HEAD request runs its GET operation (`x-head`): the validator, which routes on the request's
  // method, is given that operation under `head`.
  const validatorOf = (operation: ContractOperation, method: string = operation.method): RequestHandler => {
    const asHead = method === 'HEAD' && operation.method === 'GET';
    const key = `${operation.operationId} ${mode}${asHead ? ' head' : ''}`;
    let step = kept.get(key);
    if (!step) {
      step = inOrder(
        strictIntegerQuery(contract, operation),
        ...operationValidator(contract, operation, options, asHead ? 'head' : undefined),
      );
      kept.set(key, step);
    }
    return step;
  };
  const build = (operation: ContractOperation): boolean => {
    if (kept.has(`${operation.operationId} ${mode}`)) return false;
    validatorOf(operation);
    return true;
  };
  let modes = steps.get(contract.document);
  if (!modes) steps.set(contract.document, (modes = new Map()));
  modes.set(mode, { contract, build });
  return (req, res, next) => {
    const operation = res.locals.operation;
    if (!operation) return next();
    return validatorOf(operation, req.method)(req, res, next);
  };
}

/**
 * Builds the validator of every operation of every validation step made so far, one operation per
 * turn of the event loop (`nextTurn`, by default `setImmediate`), so requests arriving meanwhile
 * wait for one operation's set-up at most. Called by the production entry after it listens; apps
 * made without it (tests) build each validator on its operation's first request. Resolves with the number of validators it built (those already built are skipped).
 */
export async function warmValidators(
  nextTurn: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): Promise<number> {
  let count = 0;
  for (const { contract, build } of [...steps.values()].flatMap((modes) => [...modes.values()])) {
    for (const operation of contract.operations) {
      await nextTurn();
      if (build(operation)) count += 1;
    }
  }
  await nextTurn();
  return count;
}

function operationValidator(
  contract: ApiContract,
  operation: ContractOperation,
  options: ValidatorOptions,
  method?: 'head',
): RequestHandler[] {
  const handlers = libraryValidator(contract, operation, options, method);
  return hasDiscriminatedBody(contract, operation)
    ? handlers.map((handler) => bodyPathsFromTheBody(operation, handler))
    : handlers;
}

/** Whether the request body's schema is itself a `oneOf` with a `discriminator` (POST /links' LinkRequest). */
function hasDiscriminatedBody(contract: ApiContract, operation: ContractOperation): boolean {
  if (!operation.requestSchemaPointer) return false;
  const schema = contract.resolve(atPointer(contract.document, operation.requestSchemaPointer));
  return Array.isArray(schema.oneOf) && typeof schema.discriminator === 'object';
}

/**
 * The validator checks a discriminated body by running the chosen branch's schema on the body
 * alone, so its errors name `/product` or `/__proto__` where every other body's say
 * `/body/product` (the Error shape's `details[].path`: a JSON pointer into the request, from its
 * location down). Its errors about parameters come from its other check, on the whole request,
 * and start with their location and a declared parameter's name (`/headers/idempotency-key`);
 * every other error of such a request is the body's and gets `/body` in front.
 */
function bodyPathsFromTheBody(operation: ContractOperation, handler: RequestHandler): RequestHandler {
  const LOCATION: Record<string, string> = { query: 'query', header: 'headers', path: 'params', cookie: 'cookies' };
  const parameterPaths = operation.parameters.map((p) => {
    const name = String(p.name);
    return `/${LOCATION[String(p.in)] ?? String(p.in)}/${p.in === 'header' ? name.toLowerCase() : name}`;
  });
  const isParameterPath = (path: string) =>
    parameterPaths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  return (req, res, next) =>
    handler(req, res, (err?: unknown) => {
      const e = err as { status?: number; errors?: Array<{ path?: string }> } | undefined;
      if (e?.status === 400 && Array.isArray(e.errors))
        for (const detail of e.errors)
          if (typeof detail.path === 'string' && detail.path.startsWith('/') && !isParameterPath(detail.path))
            detail.path = detail.path === '/' ? '/body' : `/body${detail.path}`;
          else if (detail.path === '') detail.path = '/body';
      next(err as Error);
    });
}

function libraryValidator(
  contract: ApiContract,
  operation: ContractOperation,
  options: ValidatorOptions,
  method?: 'head',
): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: validatorDocument(contract, operation, method) as unknown as ApiSpec,
    // Parameters are text and always coerced by the validator; a JSON body is typed, so
    // `"expected_price": "250000"` or `true` is a validation_error, never silently converted.
    validateRequests: { allowUnknownQueryParameters: options.ignoreUnknownQuery === true, coerceTypes: false },
    validateResponses: options.validateResponses
      ? {
          removeAdditional: false,
          // Called instead of failing the answer. A safe method changed nothing: its defect is a
          // 500 as before (thrown on). Any other may have committed its change, so a 500, which
          // promises nothing was stored, would be false: the committed outcome is answered and
          // the defect logged for the operator.
          onError: (err: unknown, _body: unknown, req: Request) => {
            if (SAFE_METHODS.has(req.method) || !options.onContractDefect) throw err;
            options.onContractDefect(req, {
              operationId: operation.operationId,
              status: req.res?.statusCode ?? 0,
              errors: (err as { errors?: unknown }).errors ?? String(err),
            });
          },
        }
      : false,
    validateSecurity: false,
    validateFormats: true,
    // Dates with the calendar checked (server/domain/calendar.ts); the other formats stay the
    // validator's fast ones.
    formats: { date: isFullDate, 'date-time': isDateTime },
    ignoreUndocumented: false,
    // The bundled documents are checked when generated (npm run lint:spec, generate:check); the
    // validator's own meta-schema check would also insist on absolute OAuth URLs, which the
    // public document gives relative to the deployment on purpose.
    validateApiSpec: false,
    // No operation takes multipart/form-data; without this the validator would create one more Ajv
    // instance (with the document's component schemas added) per operation, and run multer's check on
    // every request.
    fileUploader: false,
    $refParser: { mode: 'bundle' },
  }) as RequestHandler[];
}

/**
 * The document one operation's validator reads: that operation alone under `paths`, its
 * parameters as the index resolved them, and only the components it reaches (the validator
 * prepares every schema of the document it is given, so a whole document per operation would
 * cost each operation's first request the whole document's preparation).
 *
 * Every query parameter is marked `allowReserved`: the server reads a raw query by the signing
 * rule (the partner document's `x-signing`: split on `&` and the first `=`, decode `%XX` escapes
 * only), under which a literal `'`, `(`, `!`, `+`, `:` or `/` in a value is unambiguous; the
 * validator would otherwise refuse such values, turning away requests the contract accepts
 * (among them what the partner client sends for a search text with an apostrophe).
 * `allowReserved` is a serialisation hint to clients; it changes no schema.
 *
 * With `method` (`head`), the operation is placed under that method: a HEAD request is validated
 * as the GET it stands for (`x-head`).
 */
export function validatorDocument(contract: ApiContract, operation: ContractOperation, method?: 'head'): Json {
  const parameters = operation.parameters.map((p) => (p.in === 'query' ? { ...p, allowReserved: true } : p));
  const pathLevel = contract.pathItem(operation.path);
  const op = { ...operation.object, parameters };
  const item: Json = {
    ...Object.fromEntries(Object.entries(pathLevel).filter(([key]) => key.startsWith('x-'))),
    [method ?? operation.method.toLowerCase()]: op,
  };
  const document = contract.document;
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  return structuredClone({
    openapi: document.openapi,
    info: document.info,
    ...(document.servers ? { servers: document.servers } : {}),
    paths: { [operation.path]: item },
    components: {
      ...reachableComponents(document, op),
      ...(components.securitySchemes ? { securitySchemes: components.securitySchemes } : {}),
    },
  });
}

/** The components (`#/components/<kind>/<name>`) a node refers to, directly or through each other. */
function reachableComponents(document: Json, from: unknown): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  const pending: unknown[] = [from];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
    } else if (node && typeof node === 'object') {
      const ref = (node as Json).$ref;
      if (typeof ref === 'string' && !seen.has(ref)) {
        seen.add(ref);
        // A pointer into a component (`#/components/schemas/X/properties/y`) keeps all of X.
        const m = /^#\/components\/([^/]+)\/([^/]+)(?:\/.*)?$/.exec(ref);
        const target = m ? atPointer(document, `/components/${m[1]}/${m[2]}`) : undefined;
        if (m && target !== undefined) {
          const [, kind, name] = m as unknown as [string, string, string];
          (out[kind] ??= {})[name.replace(/~1/g, '/').replace(/~0/g, '~')] = target;
          pending.push(target);
        }
      }
      pending.push(...Object.values(node as Json));
    }
  }
  // In the document's own order: the validator prepares discriminators while walking the
  // components, and a oneOf met before its members keeps only its first option.
  const ordered: Record<string, Record<string, unknown>> = {};
  const all = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  for (const [kind, byName] of Object.entries(out)) {
    ordered[kind] = Object.fromEntries(
      Object.keys(all[kind] ?? {})
        .filter((name) => name in byName)
        .map((name) => [name, byName[name]]),
    );
  }
  return ordered;
}

/**
 * The validator coerces query text to the parameter's type the way JavaScript does, so
 * `limit=1e2`, `limit=0x10` or `limit= 7` would pass as integers. An integer parameter is written
 * in decimal digits (RFC 8259 §6 grammar, no fraction or exponent); anything else is refused here
 * with the validator's own 400, before it can be coerced.
 */
function strictIntegerQuery(contract: ApiContract, operation: ContractOperation): RequestHandler {
  const names = operation.parameters
    .filter((p) => p.in === 'query' && isInteger(contract.resolve(p.schema)))
    .map((p) => String(p.name));
  return (req, _res, next) => {
    const errors: Array<{ path: string; message: string }> = [];
    for (const name of names) {
      const value = req.query[name];
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v === 'string' && !/^-?(0|[1-9]\d*)$/.test(v))
          errors.push({ path: `.query.${name}`, message: 'must be an integer in decimal digits' });
      }
    }
    if (errors.length === 0) return next();
    next(Object.assign(new Error('Bad request'), { status: 400, errors }));
  };
}

function isInteger(schema: Json): boolean {
  const type = schema.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}
