// The edges of the public contract's sizes (BatchRequest and BulkRequest `maxItems`): a batch of
// exactly the maximum runs every entry, one more is refused whole; a bulk request of exactly the
// maximum answers one result per domain, one more is refused whole. Both read from the contract.
import { expect, type Context, type Family } from '../context.ts';
import { jsonOf } from '../http.ts';
import { callPublic, expectPublicCode, tokensFor } from './public-support.ts';

function maxItems(ctx: Context, schema: string, member: string): number {
  const node = (
    ctx.spec.documents.public.components as {
      schemas: Record<string, { properties?: Record<string, { maxItems?: unknown }> }>;
    }
  ).schemas[schema];
  const max = node?.properties?.[member]?.maxItems;
  expect(typeof max === 'number' && max > 0, `the contract's ${schema}.${member} has no maxItems`);
  return max;
}

export const publicEdgesFamily: Family = {
  name: 'public-edges',
  surface: 'public',
  description: 'Batch and bulk requests at their documented maximum size and one past',
  needs: [],
  checks: [
    {
      id: 'public.batch.max-entries',
      rules: ['spec:public#/components/schemas/BatchRequest', 'seed:public › Limits'],
      name: 'a batch of exactly maxItems entries answers one result per entry, in order; one more is 400 validation_error for the whole request',
      async run(ctx) {
        const max = maxItems(ctx, 'BatchRequest', 'operations');
        const entries = (n: number) => ({
          operations: Array.from({ length: n }, (_, i) => ({
            id: `e${i}`,
            op: 'tld_requirements',
            params: { tld: i % 2 ? 'com' : 'net' },
          })),
        });
        const full = await callPublic(ctx, 'runBatch', { json: entries(max) });
        expect(full.status === 200, `a batch of ${max} entries (the documented maximum) answered ${full.status}`, [
          full,
        ]);
        const results = (jsonOf(full) as { results?: Array<{ id?: unknown; status?: unknown }> }).results ?? [];
        expect(
          results.length === max && results.every((r, i) => r.id === `e${i}` && r.status === 200),
          `a batch of ${max} entries must answer ${max} results in order, each 200; got ${results.length} (${results
            .slice(0, 3)
            .map((r) => `${String(r.id)} ${String(r.status)}`)
            .join(', ')}…)`,
          [full],
        );
        expectPublicCode(
          ctx,
          await callPublic(ctx, 'runBatch', { json: entries(max + 1), cost: 1, deliberate: true }),
          'validation_error',
          `a batch of ${max + 1} entries (one past the maximum)`,
        );
      },
    },
    {
      id: 'public.bulk.max-domains',
      rules: [
        'spec:public#/components/schemas/BulkRequest',
        'spec:public:runBulkDomainOperation#/description',
        'seed:public › Limits',
      ],
      name: "a bulk request of exactly maxItems domains answers one result per domain (the user's own succeed, the rest fail alone); one more is 400 validation_error",
      needs: ['oauth-user'],
      async run(ctx) {
        const max = maxItems(ctx, 'BulkRequest', 'domains');
        const { accessToken } = await tokensFor(ctx, 'pricing:read domains:manage');
        const domains = (n: number) => [
          'harborlightbakery.com',
          ...Array.from({ length: n - 1 }, (_, i) => `conformance-bulk-${i}.com`),
        ];
        const full = await callPublic(ctx, 'runBulkDomainOperation', {
          pathParams: { op: 'lock' },
          json: { domains: domains(max) },
          bearer: accessToken,
        });
        expect(full.status === 200, `a bulk lock of ${max} domains (the documented maximum) answered ${full.status}`, [
          full,
        ]);
        const body = jsonOf(full) as {
          results?: Array<{ domain?: unknown }>;
          summary?: { ok?: unknown; error?: unknown };
        };
        expect(
          body.results?.length === max && body.results.every((r, i) => r.domain === domains(max)[i]),
          `a bulk request of ${max} domains must answer ${max} results in request order, got ${body.results?.length ?? 'none'}`,
          [full],
        );
        expect(
          Number(body.summary?.ok) + Number(body.summary?.error) === max && Number(body.summary?.ok) >= 1,
          `the summary ${JSON.stringify(body.summary)} must count ${max} results, the sandbox user's own domain among the ok ones`,
          [full],
        );
        expectPublicCode(
          ctx,
          await callPublic(ctx, 'runBulkDomainOperation', {
            pathParams: { op: 'lock' },
            json: { domains: domains(max + 1) },
            bearer: accessToken,
            deliberate: true,
          }),
          'validation_error',
          `a bulk request of ${max + 1} domains (one past the maximum)`,
        );
      },
    },
  ],
};
