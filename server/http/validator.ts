// Every request, and (unless switched off: production may trade that check for speed) every
// response, checked against the contract by express-openapi-validator, used through its public
// options only. The pipeline has already matched the operation in the contract index, so each
// operation gets a validator over a document of that one operation: the validator's own lookup
// then tries one path, not the whole document, and routing is ours alone. Security is ours too.
import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';
import type { ApiContract, ContractOperation, Json } from '../contract/index.ts';
import { inOrder } from './in-order.ts';

type ApiSpec = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

export interface ValidatorOptions {
  validateResponses: boolean;
}

/**
 * The validation step of a surface: the matched operation's validator (built on its first
 * request and kept), after the strict integer rule. Needs `res.locals.operation`; a request
 * without one is not this step's to judge (the unmatched-route answer comes before it).
 */
export function openApiValidator(contract: ApiContract, options: ValidatorOptions): RequestHandler {
  const built = new Map<string, RequestHandler>();
  const validatorOf = (operation: ContractOperation): RequestHandler => {
    let step = built.get(operation.operationId);
    if (!step) {
      step = inOrder(strictIntegerQuery(contract, operation), ...operationValidator(contract, operation, options));
      built.set(operation.operationId, step);
    }
    return step;
  };
  return (req, res, next) => {
    const operation = res.locals.operation;
    if (!operation) return next();
    return validatorOf(operation)(req, res, next);
  };
}

function operationValidator(contract: ApiContract, operation: ContractOperation, options: ValidatorOptions): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: validatorDocument(contract, operation) as unknown as ApiSpec,
    // Parameters are text and always coerced by the validator; a JSON body is typed, so
    // `"expected_price": "250000"` or `true` is a validation_error, never silently converted.
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: false,
    // The bundled documents are checked when generated (npm run lint:spec, generate:check); the
    // validator's own meta-schema check would also insist on absolute OAuth URLs, which the
    // public document gives relative to the deployment on purpose.
    validateApiSpec: false,
    $refParser: { mode: 'bundle' },
  }) as RequestHandler[];
}

/**
 * The document one operation's validator reads: the bundled document with only that operation
 * under `paths`, its parameters as the index resolved them. Every query parameter is marked
 * `allowReserved`: the server reads a raw query by the signing rule (the partner document's
 * `x-signing`: split on `&` and the first `=`, decode `%XX` escapes only), under which a literal
 * `'`, `(`, `!`, `+`, `:` or `/` in a value is unambiguous; the validator would otherwise refuse
 * such values, turning away requests the contract accepts (among them what the partner client
 * sends for a search text with an apostrophe). `allowReserved` is a serialisation hint to
 * clients; it changes no schema.
 */
function validatorDocument(contract: ApiContract, operation: ContractOperation): Json {
  const parameters = operation.parameters.map((p) => (p.in === 'query' ? { ...p, allowReserved: true } : p));
  const { parameters: _shared, ...pathLevel } = contract.pathItem(operation.path);
  const op = { ...operation.object, parameters };
  const item: Json = { ...Object.fromEntries(Object.entries(pathLevel).filter(([key]) => key.startsWith('x-') || key === 'summary' || key === 'description')), [operation.method.toLowerCase()]: op };
  const { webhooks: _webhooks, ...document } = contract.document;
  return structuredClone({ ...document, paths: { [operation.path]: item } });
}

/**
 * The validator coerces query text to the parameter's type the way JavaScript does, so
 * `limit=1e2`, `limit=0x10` or `limit= 7` would pass as integers. An integer parameter is written
 * in decimal digits (RFC 8259 §6 grammar, no fraction or exponent); anything else is refused here
 * with the validator's own 400, before it can be coerced.
 */
function strictIntegerQuery(contract: ApiContract, operation: ContractOperation): RequestHandler {
  const names = operation.parameters.filter((p) => p.in === 'query' && isInteger(contract.resolve(p.schema))).map((p) => String(p.name));
  return (req, _res, next) => {
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

function isInteger(schema: Json): boolean {
  const type = schema.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}
