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

export default function contractRules() {
  return {
    id: 'contract',
    rules: {
      oas3: {
        'error-response': ErrorResponse,
        'x-scopes': XScopes,
        'x-rate-limit': XRateLimit,
        tagged: Tagged,
      },
    },
  };
}
