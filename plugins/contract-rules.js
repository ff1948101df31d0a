// Redocly lint rules for what this contract promises beyond OpenAPI itself.
// Configured in redocly.yaml as contract/<rule>; the allowed values come from there,
// where they are copied from the partner seed's scope and rate-limit tables.

const isWebhook = (ctx) => ctx.location.pointer.startsWith('#/webhooks');

/**
 * Follow a $ref (if any) and return the node, or the node itself. `from` is the document the
 * node was read from (a $ref inside a file reached through another $ref is relative to it).
 */
function deref(node, ctx, from) {
  if (node && typeof node === 'object' && typeof node.$ref === 'string') {
    const resolved = ctx.resolve(node, from);
    return { node: resolved.node, ref: node.$ref, from: resolved.location?.source?.absoluteRef ?? from };
  }
  return { node, ref: undefined, from };
}

/** Every operation documents at least one 4xx answer whose JSON body is the shared Error schema (or carries its members). */
function ErrorResponse() {
  return {
    Operation: {
      enter(operation, ctx) {
        if (isWebhook(ctx)) return;
        const responses = operation.responses ?? {};
        const ok = Object.entries(responses).some(([status, raw]) => {
          if (!/^4(\d\d|XX)$/.test(status)) return false;
          const { node: response, from } = deref(raw, ctx);
          const media = response?.content?.['application/json'];
          if (!media?.schema) return false;
          if (typeof media.schema.$ref === 'string' && media.schema.$ref.endsWith('#/components/schemas/Error'))
            return true;
          // Or a body that carries the Error members (code from ErrorCode, code and message
          // required): the MCP endpoint's JSON-RPC error responses.
          const { node: schema } = deref(media.schema, ctx, from);
          const code = schema?.properties?.code?.$ref;
          const required = Array.isArray(schema?.required) ? schema.required : [];
          return (
            typeof code === 'string' &&
            code.endsWith('#/components/schemas/ErrorCode') &&
            required.includes('code') &&
            required.includes('message')
          );
        });
        if (!ok) {
          ctx.report({
            message: 'Operation must document a 4xx response whose application/json schema is the shared Error schema.',
            location: ctx.location.child('responses'),
          });
        }
      },
    },
  };
}

/** Every non-webhook operation names its scopes (x-scopes) from the allowed set. */
function XScopes({ allowed = [] } = {}) {
  return {
    Operation: {
      enter(operation, ctx) {
        if (isWebhook(ctx)) return;
        const scopes = operation['x-scopes'];
        if (!Array.isArray(scopes) || scopes.length === 0) {
          ctx.report({
            message: 'Operation must declare x-scopes: a non-empty array of scopes.',
            location: ctx.location.key(),
          });
          return;
        }
        for (const [i, scope] of scopes.entries()) {
          if (!allowed.includes(scope)) {
            ctx.report({
              message: `x-scopes value "${scope}" is not one of: ${allowed.join(', ')}.`,
              location: ctx.location.child(['x-scopes', i]),
            });
          }
        }
      },
    },
  };
}

/** Every non-webhook operation names its rate-limit class (x-rate-limit) from the allowed set. */
function XRateLimit({ allowed = [] } = {}) {
  return {
    Operation: {
      enter(operation, ctx) {
        if (isWebhook(ctx)) return;
        const cls = operation['x-rate-limit'];
        if (typeof cls !== 'string' || !allowed.includes(cls)) {
          ctx.report({
            message: `Operation must declare x-rate-limit, one of: ${allowed.join(', ')}.`,
            location: cls === undefined ? ctx.location.key() : ctx.location.child('x-rate-limit'),
          });
        }
      },
    },
  };
}

/** Every operation has at least one tag. */
function Tagged() {
  return {
    Operation: {
      enter(operation, ctx) {
        if (!Array.isArray(operation.tags) || operation.tags.length === 0) {
          ctx.report({ message: 'Operation must have at least one tag.', location: ctx.location.key() });
        }
      },
    },
  };
}

const SAFE_INTEGER = 2 ** 53 - 1;

/**
 * Every integer a request may carry (a parameter, or anything in a request body) states a
 * `maximum` no greater than `max` (2^53 - 1 by default: what JSON parsers and JavaScript hold
 * exactly). Without one, `1e300` is an integer to JSON Schema, is accepted, and is stored or
 * echoed as something no answer's schema allows. Money states a tighter bound (the store's range,
 * see the spec's descriptions).
 */
function IntegerMaximum({ max = SAFE_INTEGER } = {}) {
  const isInteger = (schema) =>
    schema && (schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer')));
  const bounded = (schema) => typeof schema.maximum === 'number' && schema.maximum <= max;
  const message = (where, schema) =>
    `${where}: an integer a request carries must state a maximum of at most ${max} (2^53 - 1); this one ${
      typeof schema.maximum === 'number' ? `allows ${schema.maximum}` : 'has none'
    }.`;
  /** Every integer schema in a body schema, by its path of property names (`*` for array items). */
  const unbounded = (raw, ctx, from, path, seen, out) => {
    const { node, from: source } = deref(raw, ctx, from);
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (isInteger(node) && !bounded(node)) out.push([path || '(the body)', node]);
    for (const [name, child] of Object.entries(node.properties ?? {}))
      unbounded(child, ctx, source, `${path}/${name}`, seen, out);
    for (const key of ['items', 'additionalProperties', 'contains', 'not'])
      if (node[key] && typeof node[key] === 'object') unbounded(node[key], ctx, source, `${path}/*`, seen, out);
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'])
      for (const child of Array.isArray(node[key]) ? node[key] : []) unbounded(child, ctx, source, path, seen, out);
  };
  return {
    Parameter: {
      Schema: {
        enter(schema, ctx) {
          if (isInteger(schema) && !bounded(schema))
            ctx.report({ message: message('parameter', schema), location: ctx.location.key() });
        },
      },
    },
    Operation: {
      enter(operation, ctx) {
        if (!operation.requestBody) return;
        const { node: body, from } = deref(operation.requestBody, ctx);
        for (const [type, media] of Object.entries(body?.content ?? {})) {
          if (!media?.schema) continue;
          const found = [];
          unbounded(media.schema, ctx, from, '', new Set(), found);
          for (const [path, schema] of found)
            ctx.report({
              message: message(`request body ${type} ${path}`, schema),
              location: ctx.location.child(['requestBody']),
            });
        }
      },
    },
  };
}

export default function contractRules() {
  return {
    id: 'contract',
    rules: {
      oas3: {
        'error-response': ErrorResponse,
        'x-scopes': XScopes,
        'x-rate-limit': XRateLimit,
        tagged: Tagged,
        'integer-maximum': IntegerMaximum,
      },
    },
  };
}
