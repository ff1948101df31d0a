// The gate compares two documents in one spelling (scripts/contract-diff-spelling.ts): only exact
// equivalences are rewritten, anything that would change the meaning is left for redocly to see.
import { describe, expect, it } from 'vitest';
import { oneSpelling } from '../../scripts/contract-diff-spelling.ts';

describe('oneSpelling', () => {
  it('writes const as a one-value enum, in schemas only (never inside examples or values)', () => {
    expect(oneSpelling({ properties: { type: { type: 'string', const: 'generic' } } })).toEqual({
      properties: { type: { type: 'string', enum: ['generic'] } },
    });
    expect(oneSpelling({ const: 1, enum: [1, 2] })).toEqual({ const: 1, enum: [1, 2] });
    expect(oneSpelling({ examples: [{ const: 'x' }], default: { const: 'y' } })).toEqual({
      examples: [{ const: 'x' }],
      default: { const: 'y' },
    });
  });

  it('drops an items schema that only annotates, and keeps one that constrains', () => {
    expect(
      oneSpelling({ type: 'array', prefixItems: [{ type: 'string' }], items: { description: 'x' }, maxItems: 1 }),
    ).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }],
      maxItems: 1,
    });
    expect(oneSpelling({ type: 'array', items: { description: 'x', type: 'string' } })).toEqual({
      type: 'array',
      items: { description: 'x', type: 'string' },
    });
  });

  it('writes anyOf/oneOf [plain schema, null] as a type array, null joining enum and const', () => {
    expect(
      oneSpelling({
        description: 'why',
        anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }],
      }),
    ).toEqual({ description: 'why', type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(oneSpelling({ oneOf: [{ type: 'null' }, { type: 'integer', const: 3, minimum: 0 }] })).toEqual({
      type: ['integer', 'null'],
      minimum: 0,
      enum: [3, null],
    });
    // At any depth.
    expect(oneSpelling({ properties: { x: { anyOf: [{ type: 'string', maxLength: 4 }, { type: 'null' }] } } })).toEqual(
      { properties: { x: { type: ['string', 'null'], maxLength: 4 } } },
    );
  });

  it('leaves forms that are not the same as a type array alone', () => {
    const kept = [
      // a keyword that applies to null too (not) inside the member
      { anyOf: [{ type: 'string', not: { enum: ['x'] } }, { type: 'null' }] },
      // a $ref member (its type is not known here)
      { anyOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }] },
      // a constraint beside the composition
      { enum: ['a'], anyOf: [{ type: 'string' }, { type: 'null' }] },
      // three members, or a null member that says more than its type
      { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
      { anyOf: [{ type: 'string' }, { type: 'null', description: 'none' }] },
      // a type array member
      { anyOf: [{ type: ['string', 'integer'] }, { type: 'null' }] },
    ];
    for (const schema of kept) expect(oneSpelling(schema)).toEqual(schema);
  });
});
