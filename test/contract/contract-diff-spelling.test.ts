// The gate compares "or null" in one spelling (scripts/contract-diff-nullable.ts): only exact
// equivalences are rewritten, anything that would change the meaning is left for redocly to see.
import { describe, expect, it } from 'vitest';
import { nullableAsTypeArray } from '../../scripts/contract-diff-nullable.ts';

describe('nullableAsTypeArray', () => {
  it('writes anyOf/oneOf [plain schema, null] as a type array, null joining enum and const', () => {
    expect(
      nullableAsTypeArray({
        description: 'why',
        anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }],
      }),
    ).toEqual({ description: 'why', type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(nullableAsTypeArray({ oneOf: [{ type: 'null' }, { type: 'integer', const: 3, minimum: 0 }] })).toEqual({
      type: ['integer', 'null'],
      minimum: 0,
      enum: [3, null],
    });
    // At any depth.
    expect(
      nullableAsTypeArray({ properties: { x: { anyOf: [{ type: 'string', maxLength: 4 }, { type: 'null' }] } } }),
    ).toEqual({ properties: { x: { type: ['string', 'null'], maxLength: 4 } } });
  });

  it('leaves forms that are not the same as a type array alone', () => {
    const kept = [
      // a keyword that applies to null too (not) inside the member
      { anyOf: [{ type: 'string', not: { const: 'x' } }, { type: 'null' }] },
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
    for (const schema of kept) expect(nullableAsTypeArray(schema)).toEqual(schema);
  });
});
