// The `--target mock` profile: checks a mock of one document (Prism, `npm run mock`) the way a
// partner meets it before having sandbox keys. Every operation of the document is called once
// with its documented example request; the answer must have a documented status (a 2xx where the
// operation documents one), the documented Content-Type, a body valid against its schema and
// the documented required headers. No protocol checks: a mock keeps no state (idempotency,
// pagination, replay) and verifies no signatures (any value of the four signing headers passes).
import { CheckFailure, type Check, type Context, type Family } from '../context.ts';
import { SpecIndex, type SpecOperation } from '../spec.ts';
import { escapePointer, finalPointer, nodeAt, resolveRef, type Api } from './headers.ts';
import { reviewExchange } from './schema.ts';

type Json = Record<string, unknown>;

/** Placeholder signing headers: a mock checks that the four are present, never their values. */
const MOCK_SIGNING_HEADERS = {
  'x-service-key-id': 'pk_test_mock',
  'x-service-timestamp': '1700000000',
  'x-service-nonce': '5f0c3a52-mock-nonce',
  'x-service-signature': `v1=${'0'.repeat(64)}`,
};

/** The first example of a parameter, media type or schema. */
function exampleOf(doc: Json, node: Json | undefined): unknown {
  if (!node) return undefined;
  if (node.example !== undefined) return node.example;
  if (node.examples && typeof node.examples === 'object' && !Array.isArray(node.examples)) {
    const first = Object.values(node.examples as Record<string, Json>)[0];
    if (first) return resolveRef(doc, first).value;
  }
  const schema = node.schema ? resolveRef(doc, node.schema as Json) : resolveRef(doc, node);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  return undefined;
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The example request of one operation: target (path and query), headers and body. */
export function exampleRequest(
  doc: Json,
  api: Api,
  op: SpecOperation,
): { target: string; headers: Record<string, string>; body: string | undefined; problems: string[] } {
  const problems: string[] = [];
  let path = op.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  for (const param of op.parameters) {
    const example = exampleOf(doc, param);
    const name = String(param.name);
    if (param.in === 'path') {
      if (example === undefined) problems.push(`path parameter ${name} has no example`);
      path = path.replace(`{${name}}`, encodeURIComponent(text(example ?? 'example')));
    } else if (param.required === true && example === undefined) {
      problems.push(`required ${String(param.in)} parameter ${name} has no example`);
    } else if (param.required === true) {
      if (param.in === 'query') query.push(`${encodeURIComponent(name)}=${encodeURIComponent(text(example))}`);
      if (param.in === 'header') headers[name.toLowerCase()] = text(example);
    }
  }
  const opPointer = `/paths/${escapePointer(op.path)}/${op.method.toLowerCase()}`;
  const security = nodeAt(doc, opPointer)?.security ?? doc.security;
  const schemes = Array.isArray(security) ? (security as Json[]).flatMap((s) => Object.keys(s)) : [];
  if (schemes.some((s) => s.startsWith('Service'))) Object.assign(headers, MOCK_SIGNING_HEADERS);
  if (Array.isArray(security) && security.length > 0 && !security.some((s) => Object.keys(s as Json).length === 0)) {
    headers.authorization = 'Bearer mock-access-token';
  }
  let body: string | undefined;
  const requestBody = nodeAt(doc, finalPointer(doc, `${opPointer}/requestBody`));
  if (requestBody) {
    const content = (requestBody.content ?? {}) as Record<string, Json>;
    const [media, node] = Object.entries(content)[0] ?? [];
    const example = exampleOf(doc, node);
    if (example === undefined && requestBody.required === true) problems.push(`request body (${media}) has no example`);
    if (media && example !== undefined) {
      headers['content-type'] = media;
      body =
        media === 'application/x-www-form-urlencoded' && example && typeof example === 'object'
          ? new URLSearchParams(Object.entries(example as Json).map(([k, v]) => [k, text(v)])).toString()
          : typeof example === 'string'
            ? example
            : JSON.stringify(example);
    }
  }
  return { target: query.length > 0 ? `${path}?${query.join('&')}` : path, headers, body, problems };
}

function operationCheck(api: Api, op: SpecOperation): Check {
  return {
    id: `mock.${api}.${op.operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    rules: [`spec:${api}:${op.operationId}#/responses`],
    name: `${op.method} ${op.path} (${op.operationId})`,
    async run(ctx: Context) {
      const doc = ctx.spec.documents[api];
      const request = exampleRequest(doc, api, op);
      const documented = Object.keys(op.responses);
      const success = documented.filter((s) => /^[23]/.test(s));
      // Prism answers the lowest 2xx by itself; an operation that only redirects (302/303) is
      // asked for its redirect, as a partner would (`Prefer: code=302`).
      if (success.length > 0 && !success.some((s) => s.startsWith('2'))) request.headers.prefer = `code=${success[0]}`;
      const exchange = await ctx.http.send({
        method: op.method,
        target: request.target,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        operation: { method: op.method, path: op.path },
        acceptRateLimit: true,
      });
      const problems = [...request.problems];
      const status = String(exchange.status);
      if (success.length > 0 && !success.includes(status) && !success.includes(`${status[0]}XX`)) {
        problems.push(
          `the example request got ${status}; the operation documents ${success.join(', ')} for a request that is not refused`,
        );
      }
      // The contract rules of every answer (status documented, Content-Type, body schema, headers).
      // Rate-limit arithmetic is the deployment's behaviour, not the document's: a static mock
      // answers the example header values, so those problems are left to deployment runs.
      const review = reviewExchange(ctx, exchange);
      problems.push(...review.problems.filter((p) => !/RateLimit|Retry-After|rate-limit/.test(p)));
      if (problems.length > 0) throw new CheckFailure(`${review.key}:\n  - ${problems.join('\n  - ')}`, [exchange]);
    },
  };
}

function mockFamily(api: Api): Family {
  const spec = SpecIndex.load();
  return {
    name: `mock-${api}`,
    surface: api,
    description: `every ${api} operation answers its example request as the document says (status, Content-Type, body schema, required headers)`,
    needs: [],
    checks: spec.operations.filter((o) => o.api === api && !o.deprecated).map((o) => operationCheck(api, o)),
  };
}

export const MOCK_FAMILIES: Family[] = [mockFamily('partner'), mockFamily('public')];
