// Every public answer of the run against the public document (each operation's responses and the "Errors" paragraph): documented status,
// Content-Type, body schema, required headers, the Error code of that status (the same review the
// schema family applies to the partner surface). Runs last, after a sweep that sends the
// documented example request of every public read once (none may answer a 5xx).
import { CheckFailure, type Context, type Family } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';
import { exampleRequest } from './mock.ts';
import { answeredOperations, buildTargets, checkBrokenInputs, reviewSurface } from './schema.ts';

/** The anonymous JSON reads of the REST API (their tags in the public document). */
const REST_TAGS = new Set(['Search', 'WHOIS', 'TLDs', 'Marketplace', 'Batch']);

function restOperations(ctx: Context): Set<string> {
  const tagged = ctx.spec.operations.filter(
    (op) => op.api === 'public' && (op.object.tags as string[] | undefined)?.some((t) => REST_TAGS.has(t)),
  );
  return new Set(tagged.map((op) => op.operationId));
}

export const publicSchemaFamily: Family = {
  name: 'public-schema',
  surface: 'public',
  description:
    'Every public answer of the run matches the public document (status, media type, body, headers, Error codes); a sweep of every public read',
  needs: [],
  last: true,
  checks: [
    {
      id: 'public.schema.sweep',
      rules: ['spec:public#/paths'],
      name: 'sweep: the example request of every public read answers without a server error',
      async run(ctx) {
        const doc = ctx.spec.documents.public;
        const all = ctx.spec.operations.filter((o) => o.api === 'public' && o.method === 'GET' && !o.deprecated);
        // A read the run already had answered without a server error is not asked again.
        const answered = answeredOperations(ctx, 'public');
        const reads = all.filter((o) => !answered.has(o.operationId));
        const failures: Exchange[] = [];
        const statuses = new Map<number, number>();
        for (const op of reads) {
          const request = exampleRequest(doc, 'public', op);
          // The example bearer token of a protected read is no token of this deployment.
          delete request.headers.authorization;
          const exchange = await ctx.http.send({
            target: request.target,
            headers: request.headers,
            operation: { method: op.method, path: op.path },
            rateClass: op.rateClass ?? 'public',
          });
          statuses.set(exchange.status, (statuses.get(exchange.status) ?? 0) + 1);
          if (exchange.status >= 500) failures.push(exchange);
        }
        ctx.log(
          `  swept ${reads.length} public reads (${all.length - reads.length} more were answered earlier in the run): ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`,
        );
        if (failures.length > 0) {
          const lines = failures.map(
            (e) =>
              `  ${e.method} ${e.url.slice(ctx.http.baseUrl.length)} → ${e.status} ${String((jsonOf(e) as { code?: unknown } | undefined)?.code ?? '')}`,
          );
          throw new CheckFailure(
            `${failures.length} example reads answered with a server error:\n${lines.join('\n')}`,
            failures.slice(0, 2),
          );
        }
      },
    },
    {
      id: 'public.schema.invalid-inputs',
      rules: ['spec:public#/components/schemas/ErrorCode/x-status-of-code/validation_error'],
      name: 'schema-derived invalid inputs to the REST reads (one member broken) are refused with 400 validation_error and details, never a 5xx',
      async run(ctx) {
        const targets = buildTargets(ctx, 'public', (id) => restOperations(ctx).has(id));
        if (targets.length === 0)
          throw new CheckFailure(
            'no public REST operation with parameters or a body was found in the public document',
            [],
          );
        await checkBrokenInputs(ctx, targets, {
          runs: Math.max(ctx.fc.numRuns, 25),
          spend: { cost: { public: 1 } },
          send: (t, sent) =>
            ctx.http.send({
              method: t.op.method,
              target: sent.target,
              headers: sent.headers,
              ...(sent.body !== undefined ? { body: sent.body } : {}),
              operation: { method: t.op.method, path: t.op.path },
              rateClass: t.op.rateClass ?? 'public',
              deliberate: true,
            }),
        });
      },
    },
    {
      id: 'public.schema.every-answer',
      rules: ['spec:public#/paths', 'spec:public#/components/schemas/Error'],
      name: 'every public exchange of the run: documented status, Content-Type, body schema, required headers, Error code of that status',
      async run(ctx) {
        reviewSurface(ctx, 'public');
      },
    },
  ],
};
