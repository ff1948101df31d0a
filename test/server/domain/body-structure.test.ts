// The structural scans of request bodies (x-body-limits) against what a parser sees: for any
// JSON text the scan refuses exactly the bodies whose parsed value is deeper or wider than the
// limits; for forms, exactly those with more fields than URLSearchParams would yield.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formStructureProblem, jsonStructureProblem } from '../../../server/domain/body-structure.ts';

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** Depth and member count of a parsed value, by the definitions of x-body-limits. */
function measure(value: unknown): { depth: number; members: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, members: 0 };
  const children = Array.isArray(value) ? value : Object.values(value);
  let depth = 0;
  let members = children.length;
  for (const child of children) {
    const m = measure(child);
    depth = Math.max(depth, m.depth);
    members += m.members;
  }
  return { depth: depth + 1, members };
}

describe('jsonStructureProblem', () => {
  it('agrees with the parsed value on every JSON text (whitespace, escapes and all)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 40 }),
        (value, indent, maxDepth, maxMembers) => {
          const text = JSON.stringify(value, null, indent);
          const { depth, members } = measure(value);
          const problem = jsonStructureProblem(bytes(text), { maxDepth, maxMembers });
          expect(problem === undefined).toBe(depth <= maxDepth && members <= maxMembers);
          expect(jsonStructureProblem(bytes(text), { maxDepth: depth, maxMembers: members })).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is not fooled by brackets, commas and escaped quotes inside strings', () => {
    const text = JSON.stringify({ q: '[[[{{{,,,\\"]]]', r: ['"', '\\', '\\"[', 'é€😀'] });
    expect(jsonStructureProblem(bytes(text), { maxDepth: 2, maxMembers: 6 })).toBeUndefined();
    expect(jsonStructureProblem(bytes(text), { maxDepth: 1, maxMembers: 6 })).toMatchObject({ limit: 'depth', max: 1 });
    expect(jsonStructureProblem(bytes(text), { maxDepth: 2, maxMembers: 5 })).toMatchObject({
      limit: 'members',
      max: 5,
    });
  });

  it('stops at the first level too deep: a 1 MiB [[[…]]] is refused at its 33rd byte', () => {
    const half = 512 * 1024;
    const deep = bytes(`${'['.repeat(half)}${']'.repeat(half)}`);
    expect(jsonStructureProblem(deep, { maxDepth: 32, maxMembers: 4096 })).toEqual({
      limit: 'depth',
      max: 32,
      offset: 32,
    });
  });

  it('counts members at every depth together (3 + 2 + 1 + 1 + 2 here)', () => {
    expect(jsonStructureProblem(bytes('[[1,2],[3],{"a":[4,5]}]'), { maxDepth: 3, maxMembers: 9 })).toBeUndefined();
    expect(jsonStructureProblem(bytes('[[1,2],[3],{"a":[4,5]}]'), { maxDepth: 3, maxMembers: 8 })).toMatchObject({
      limit: 'members',
    });
    expect(jsonStructureProblem(bytes('[[],{},[ ]]'), { maxDepth: 2, maxMembers: 3 })).toBeUndefined();
  });

  it('leaves malformed text to the parser', () => {
    for (const text of ['"unterminated', '{"a":', ']]]', '', 'nul'])
      expect(jsonStructureProblem(bytes(text), { maxDepth: 32, maxMembers: 10 })).toBeUndefined();
  });
});

describe('formStructureProblem', () => {
  it('counts the fields URLSearchParams yields', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a=1', 'b', '', '=', 'c=x%26y', 'd=é'), { maxLength: 30 }),
        fc.integer({ min: 0, max: 30 }),
        (parts, max) => {
          const text = parts.join('&');
          const fields = [...new URLSearchParams(text)].length;
          expect(formStructureProblem(bytes(text), max) === undefined).toBe(fields <= max);
        },
      ),
      { numRuns: 500 },
    );
  });
});
