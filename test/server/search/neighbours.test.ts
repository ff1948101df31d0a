// The word-embedding neighbour file (issue 24): the committed file loads, has the shape and bounds
// the search relies on, and a malformed file is refused with the line that is wrong.
import { describe, expect, it } from 'vitest';
import { LEXICON } from '../../../server/inventory/words.ts';
import { language } from '../../../server/search/language.ts';
import {
  loadNeighbours,
  MAX_NEIGHBOURS,
  NEIGHBOURS_FORMAT,
  parseNeighbours,
} from '../../../server/search/neighbours.ts';

const HEADER = `# ${NEIGHBOURS_FORMAT}\n@ coffee tea music\n`;

describe('word neighbours', () => {
  const neighbours = loadNeighbours();

  it('the committed file: sandbox words only, nearest first, cosines in (0, 1], never a sandbox word as key', () => {
    const { lexicon } = language();
    const sandboxTerms = new Set([...LEXICON.values()].map((info) => lexicon.termOf(info.word)));
    expect(neighbours.size).toBeGreaterThan(20_000);
    expect(neighbours.targets.length).toBeGreaterThan(500);
    for (const target of neighbours.targets) expect(sandboxTerms.has(target)).toBe(true);
    for (const word of ['symphony', 'culinary', 'database', 'motel', 'photovoltaic']) {
      const near = neighbours.of(word);
      expect(near.length, word).toBeGreaterThan(0);
      expect(near.length).toBeLessThanOrEqual(MAX_NEIGHBOURS);
      near.forEach((n, i) => {
        expect(sandboxTerms.has(n.word)).toBe(true);
        expect(n.cosine).toBeGreaterThan(0);
        expect(n.cosine).toBeLessThanOrEqual(1);
        if (i > 0) expect(n.cosine).toBeLessThanOrEqual(near[i - 1]?.cosine ?? 1);
      });
    }
    // The vocabulary's own words keep their own meaning: they are never keys.
    expect(neighbours.of('coffee')).toEqual([]);
    expect(neighbours.of('qzxv')).toEqual([]);
  });

  it('says what the embeddings know and WordNet misses', () => {
    // WordNet's senses lead culinary to heat and database to "list"; the embeddings do not.
    expect(neighbours.of('database').map((n) => n.word)).toContain('data');
    expect(neighbours.of('photovoltaic')[0]?.word).toBe('solar');
    expect(neighbours.of('symphony').map((n) => n.word)).toContain('music');
  });

  it('parses a well-formed file', () => {
    const parsed = parseNeighbours(`${HEADER}espresso 0:80 1:41\nsymphony 2:59\n`);
    expect(parsed.size).toBe(2);
    expect(parsed.of('espresso')).toEqual([
      { word: 'coffee', cosine: 0.8 },
      { word: 'tea', cosine: 0.41 },
    ]);
    expect(parsed.of('symphony')).toEqual([{ word: 'music', cosine: 0.59 }]);
  });

  it.each([
    ['a file of another format', 'word-neighbours v0\n@ coffee\n', /:1: not a "word-neighbours v1" file/],
    ['no @ line', `# ${NEIGHBOURS_FORMAT}\nespresso 0:80\n`, /:2: a word before the @ line/],
    ['an index beyond the @ line', `${HEADER}espresso 3:80\n`, /:3: "3:80": no such sandbox word/],
    ['a cosine out of range', `${HEADER}espresso 0:0\n`, /:3: "0:0": a cosine must be 1 to 100/],
    ['neighbours out of order', `${HEADER}espresso 1:40 0:80\n`, /:3: "espresso": neighbours must come nearest first/],
    ['a word listed twice', `${HEADER}espresso 0:80\nespresso 1:40\n`, /:4: "espresso" listed twice/],
    ['a line without neighbours', `${HEADER}espresso\n`, /:3: "espresso" has 0 neighbours/],
    [
      'too many neighbours',
      `${HEADER}espresso ${Array(MAX_NEIGHBOURS + 1)
        .fill('0:50')
        .join(' ')}\n`,
      /has 17 neighbours/,
    ],
    ['a malformed pair', `${HEADER}espresso 0-80\n`, /:3: "0-80": no such sandbox word/],
  ])('refuses %s, naming the line', (_, text, message) => {
    expect(() => parseNeighbours(text, 'test-file')).toThrow(message);
  });
});
