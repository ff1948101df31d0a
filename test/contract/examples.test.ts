// The example checker itself must catch a bad example, or "0 invalid" means nothing.
import { describe, expect, it } from 'vitest';
import { countExamples, exampleProblems } from '../../scripts/examples.ts';

const docWith = (example: unknown, schemaExamples: unknown[] = []) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/x': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Thing' },
                examples: { one: { value: example } },
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['price_cents', 'at'],
        properties: { price_cents: { type: 'integer', minimum: 0 }, at: { type: 'string', format: 'date-time' } },
        examples: schemaExamples,
      },
    },
  },
});

describe('exampleProblems', () => {
  it('accepts valid examples', () => {
    const doc = docWith({ price_cents: 100, at: '2026-11-22T09:30:00Z' }, [
      { price_cents: 0, at: '2026-01-01T00:00:00Z' },
    ]);
    expect(countExamples(doc)).toBe(2);
    expect(exampleProblems(doc)).toEqual([]);
  });

  it('reports a media-type example of the wrong type, with its location', () => {
    const problems = exampleProblems(docWith({ price_cents: '100', at: '2026-11-22T09:30:00Z' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.pointer).toBe('/paths/~1x/get/responses/200/content/application~1json/examples/one');
    expect(problems[0]?.message).toContain('price_cents');
  });

  it('reports a bad format and a schema-level example missing a required member', () => {
    const problems = exampleProblems(docWith({ price_cents: 1, at: 'yesterday' }, [{ price_cents: 1 }]));
    expect(problems.map((p) => p.pointer).sort()).toEqual([
      '/components/schemas/Thing/examples/0',
      '/paths/~1x/get/responses/200/content/application~1json/examples/one',
    ]);
  });
});
