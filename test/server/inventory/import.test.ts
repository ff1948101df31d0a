import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  detectFormat,
  domainSyntaxError,
  entryToRow,
  importInventoryFile,
  parseInventoryText,
  type ImportProblem,
  type ParseResult,
} from '../../../server/inventory/import.ts';
import type { OpenedDatabase } from '../../../server/store/database.ts';
import { inventoryRepository, type InventoryRepository } from '../../../server/store/inventory.ts';
import { testDatabases } from './databases.ts';

const problemsOf = (result: ParseResult): ImportProblem[] => (result.ok ? [] : result.problems);
const entriesOf = (result: ParseResult) => (result.ok ? result.entries : []);

describe('domainSyntaxError', () => {
  it.each([
    'bestcoffeebeans.com',
    'a.io',
    'shop.co.uk',
    'my-shop24.store',
    'xn--caf-dma.com',
    'a--b.com',
    `${'a'.repeat(63)}.com`,
  ])('accepts %s', (domain) => {
    expect(domainSyntaxError(domain)).toBeUndefined();
  });

  it.each([
    ['', /empty/],
    ['Example.com', /lowercase/],
    ['exa mple.com', /a space/],
    ['exa_mple.com', /"_"/],
    ['café.com', /"é"/],
    ['example', /no dot/],
    ['.example.com', /empty label/],
    ['example.com.', /empty label/],
    ['example..com', /empty label/],
    ['-example.com', /hyphen/],
    ['example-.com', /hyphen/],
    ['example.-com', /hyphen/],
    ['ab--cd.com', /third and fourth/],
    ['example.c0m1', undefined],
    ['example.1com', /TLD/],
    [`${'a'.repeat(64)}.com`, /more than 63/],
    [`${`${'a'.repeat(60)}.`.repeat(4)}${'b'.repeat(10)}`, /more than 253/],
  ])('refuses %j', (domain, message) => {
    if (message === undefined) expect(domainSyntaxError(domain)).toBeUndefined();
    else expect(domainSyntaxError(domain)).toMatch(message);
  });

  it('agrees with the spec pattern on generated names', () => {
    const specPattern = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        if (domainSyntaxError(domain) === undefined) expect(domain).toMatch(specPattern);
      }),
    );
  });
});

describe('parseInventoryText: CSV', () => {
  it('accepts the columns in any order, quoted fields, CRLF, a BOM and blank lines', () => {
    const text =
      '\ufefffloor_cents, domain ,price_cents\r\n200000,bestcoffeebeans.com,250000\r\n\r\n"900","shop.co.uk", "1000"\r\n';
    expect(parseInventoryText(text, 'csv')).toEqual({
      ok: true,
      entries: [
        { line: 2, domain: 'bestcoffeebeans.com', price_cents: 250_000, floor_cents: 200_000 },
        { line: 4, domain: 'shop.co.uk', price_cents: 1000, floor_cents: 900 },
      ],
    });
  });

  it('refuses extra, missing and repeated columns with a clear message', () => {
    expect(problemsOf(parseInventoryText('domain,price_cents,floor_cents,currency\nx.com,1,1\n', 'csv'))).toEqual([
      {
        line: 1,
        message: expect.stringMatching(/unexpected column "currency".*exactly domain, price_cents, floor_cents/),
      },
    ]);
    expect(problemsOf(parseInventoryText('domain,price_cents\nx.com,1\n', 'csv'))).toEqual([
      { line: 1, message: expect.stringMatching(/missing column "floor_cents"/) },
    ]);
    expect(problemsOf(parseInventoryText('domain,price_cents,domain,floor_cents\n', 'csv'))).toEqual([
      { line: 1, message: expect.stringMatching(/column "domain" appears 2 times/) },
    ]);
  });

  it('reports every bad row with its line number, and accepts none of the file', () => {
    const text = [
      'domain,price_cents,floor_cents', // 1
      'good.com,1000,500', // 2
      'Bad.com,1000,500', // 3
      'nodot,1000,500', // 4
      'neg.com,-5,0', // 5
      'frac.com,12.5,1', // 6
      'word.com,ten,1', // 7
      'floor.com,100,200', // 8
      'good.com,1000,500', // 9
      'short.com,1000', // 10
      '', // 11
      '"multi', // 12
      'line.com",5,1', // 13
      'huge.com,99999999999999999999,1', // 14
      'empty.com,,', // 15
      '-dash.com,10,5', // 16
      'last.com,10,5', // 17
    ].join('\n');
    const problems = problemsOf(parseInventoryText(text, 'csv'));
    const at = (line: number) => problems.filter((p) => p.line === line).map((p) => p.message);
    expect(at(2)).toEqual([]);
    expect(at(3)).toEqual([expect.stringMatching(/lowercase/)]);
    expect(at(4)).toEqual([expect.stringMatching(/no dot/)]);
    expect(at(5)).toEqual([expect.stringMatching(/price_cents "-5" is not a non-negative integer/)]);
    expect(at(6)).toEqual([expect.stringMatching(/price_cents "12.5"/)]);
    expect(at(7)).toEqual([expect.stringMatching(/price_cents "ten"/)]);
    expect(at(8)).toEqual([expect.stringMatching(/floor_cents 200 is above price_cents 100/)]);
    expect(at(9)).toEqual([expect.stringMatching(/duplicate domain "good.com" \(first on line 2\)/)]);
    expect(at(10)).toEqual([expect.stringMatching(/expected 3 fields, found 2/)]);
    // A quoted field spanning two lines is reported on the line where its record starts.
    expect(at(12)).toEqual([expect.stringMatching(/contains "\\n"/)]);
    expect(at(14)).toEqual([expect.stringMatching(/too large/)]);
    expect(at(15)).toHaveLength(2);
    expect(at(16)).toEqual([expect.stringMatching(/hyphen/)]);
    expect(at(17)).toEqual([]);
    expect(new Set(problems.map((p) => p.line))).toEqual(new Set([3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16]));
  });

  it('reports an unclosed quote, an empty file and a header without rows', () => {
    expect(problemsOf(parseInventoryText('domain,price_cents,floor_cents\nx.com,"1,1\n', 'csv'))).toEqual([
      { line: 2, message: expect.stringMatching(/never closed/) },
    ]);
    expect(problemsOf(parseInventoryText('', 'csv'))).toEqual([{ line: 1, message: expect.stringMatching(/empty/) }]);
    expect(problemsOf(parseInventoryText('domain,price_cents,floor_cents\n', 'csv'))).toEqual([
      { line: 1, message: expect.stringMatching(/no rows/) },
    ]);
  });
});

describe('parseInventoryText: JSON', () => {
  it('accepts an array of objects', () => {
    const text = JSON.stringify(
      [
        { domain: 'bestcoffeebeans.com', price_cents: 250_000, floor_cents: 200_000 },
        { floor_cents: 1, price_cents: 2, domain: 'x.io' },
      ],
      null,
      2,
    );
    expect(entriesOf(parseInventoryText(text, 'json'))).toEqual([
      { line: 2, domain: 'bestcoffeebeans.com', price_cents: 250_000, floor_cents: 200_000 },
      { line: 7, domain: 'x.io', price_cents: 2, floor_cents: 1 },
    ]);
  });

  it('reports every bad item on the line where it starts', () => {
    const text = [
      '[', // 1
      '  {"domain": "ok.com", "price_cents": 100, "floor_cents": 50},', // 2
      '  {"domain": "extra.com", "price_cents": 100, "floor_cents": 50, "currency": "USD"},', // 3
      '  {"domain": "missing.com", "price_cents": 100},', // 4
      '  {"domain": "text.com", "price_cents": "100", "floor_cents": 50},', // 5
      '  {"domain": "float.com", "price_cents": 1.5, "floor_cents": 1},', // 6
      '  {"domain": null, "price_cents": 1, "floor_cents": 1},', // 7
      '  [1, 2, 3],', // 8
      '  {', // 9
      '    "domain": "UPPER.com", "price_cents": 1, "floor_cents": 1', // 10
      '  },', // 11
      '  {"domain": "ok.com", "price_cents": 100, "floor_cents": 50}, "a string with ] and { inside",', // 12
      '  {"domain": "floor.com", "price_cents": 1, "floor_cents": 2}', // 13
      ']', // 14
    ].join('\n');
    const problems = problemsOf(parseInventoryText(text, 'json'));
    const at = (line: number) => problems.filter((p) => p.line === line).map((p) => p.message);
    expect(at(3)).toEqual([expect.stringMatching(/unexpected field "currency"/)]);
    expect(at(4)).toEqual([expect.stringMatching(/missing field "floor_cents"/)]);
    expect(at(5)).toEqual([expect.stringMatching(/price_cents "100" is not a non-negative integer/)]);
    expect(at(6)).toEqual([expect.stringMatching(/price_cents 1.5/)]);
    expect(at(7)).toEqual([expect.stringMatching(/domain must be a string/)]);
    expect(at(8)).toEqual([expect.stringMatching(/item 7 is not an object/)]);
    expect(at(9)).toEqual([expect.stringMatching(/lowercase/)]);
    expect(at(12)).toEqual([
      expect.stringMatching(/duplicate domain "ok.com" \(first on line 2\)/),
      expect.stringMatching(/item 10 is not an object/),
    ]);
    expect(at(13)).toEqual([expect.stringMatching(/floor_cents 2 is above/)]);
    expect(at(2)).toEqual([]);
  });

  it('reports invalid JSON at its line, and refuses anything but a non-empty array', () => {
    const broken = problemsOf(
      parseInventoryText('[\n  {"domain": "a.com",\n  "price_cents": 1 "floor_cents": 1}\n]', 'json'),
    );
    expect(broken).toEqual([{ line: 3, message: expect.stringMatching(/not valid JSON/) }]);
    expect(problemsOf(parseInventoryText('{"domain": "a.com"}', 'json'))).toEqual([
      { line: 1, message: expect.stringMatching(/expected a JSON array/) },
    ]);
    expect(problemsOf(parseInventoryText('[]', 'json'))).toEqual([
      { line: 1, message: expect.stringMatching(/no rows/) },
    ]);
  });
});

describe('detectFormat and entryToRow', () => {
  it('detects by extension, else by content', () => {
    expect(detectFormat('x.csv', '[')).toBe('csv');
    expect(detectFormat('x.JSON', 'domain')).toBe('json');
    expect(detectFormat('x.txt', '\ufeff  [{}]')).toBe('json');
    expect(detectFormat('inventory', 'domain,price_cents,floor_cents')).toBe('csv');
  });

  it('derives label, tld, category and keywords', () => {
    expect(entryToRow({ domain: 'bestcoffeebeans.com', price_cents: 2, floor_cents: 1 }, 5)).toEqual({
      domain: 'bestcoffeebeans.com',
      label: 'bestcoffeebeans',
      tld: 'com',
      price_cents: 2,
      floor_cents: 1,
      currency: 'USD',
      category: 'food-and-drink',
      keywords: ['coffee', 'beans', 'best'],
      listed_at: 5,
    });
    expect(entryToRow({ domain: 'zzqxv.co.uk', price_cents: 2, floor_cents: 1 }, 5)).toMatchObject({
      label: 'zzqxv',
      tld: 'co.uk',
      category: 'uncategorised',
      keywords: [],
    });
    expect(entryToRow({ domain: 'green-leaf.garden', price_cents: 2, floor_cents: 1 }, 5)).toMatchObject({
      keywords: ['green', 'leaf'],
      category: 'home-and-garden',
    });
  });
});

for (const database of testDatabases()) {
  describe.skipIf(!database.available)(`importInventoryFile on ${database.name}`, () => {
    let opened: OpenedDatabase;
    let repo: InventoryRepository;
    let dir: string;
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };

    beforeAll(async () => {
      opened = await database.open();
      repo = inventoryRepository(opened.db);
      dir = mkdtempSync(join(tmpdir(), 'inventory-import-'));
    });
    afterAll(async () => {
      await opened?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      await opened.db.deleteFrom('inventory').execute();
      await repo.replaceEnvironment('live', [
        entryToRow({ domain: 'previous.com', price_cents: 100, floor_cents: 50 }, 1),
      ]);
      await repo.replaceEnvironment('sandbox', [
        entryToRow({ domain: 'sandbox.com', price_cents: 100, floor_cents: 50 }, 1),
      ]);
    });

    it('imports a CSV file into one environment only', async () => {
      const path = file(
        'live.csv',
        'domain,price_cents,floor_cents\nbestcoffeebeans.com,250000,200000\nzzqxv.io,5000,2500\n',
      );
      expect(await importInventoryFile(opened.db, 'live', path, { now: 1234 })).toEqual({
        ok: true,
        format: 'csv',
        imported: 2,
        keptSold: 0,
      });
      expect(await repo.count('live')).toBe(2);
      expect(await repo.find('live', 'previous.com')).toBeUndefined();
      expect(await repo.find('live', 'zzqxv.io')).toMatchObject({
        category: 'uncategorised',
        listed_at: 1234,
        status: 'listed',
      });
      expect(await repo.count('sandbox')).toBe(1);
    });

    it('imports a JSON file, detected by content', async () => {
      const path = file(
        'sandbox-data',
        JSON.stringify([{ domain: 'brewhouse.io', price_cents: 72_000, floor_cents: 54_000 }]),
      );
      expect(await importInventoryFile(opened.db, 'sandbox', path)).toMatchObject({
        ok: true,
        format: 'json',
        imported: 1,
      });
      expect(await repo.find('sandbox', 'brewhouse.io')).toMatchObject({ keywords: ['brew', 'house'] });
      expect(await repo.find('sandbox', 'sandbox.com')).toBeUndefined();
      expect(await repo.count('live')).toBe(1);
    });

    it('writes nothing when any row is bad', async () => {
      const rows = Array.from({ length: 2000 }, (_, i) => `name${i}.com,${1000 + i},500`);
      rows[1500] = 'name1500.com,100,500';
      const path = file('bad.csv', `domain,price_cents,floor_cents\n${rows.join('\n')}\n`);
      const outcome = await importInventoryFile(opened.db, 'live', path, { batchSize: 100 });
      expect(outcome).toEqual({
        ok: false,
        format: 'csv',
        problems: [{ line: 1502, message: 'floor_cents 500 is above price_cents 100' }],
      });
      expect(await repo.count('live')).toBe(1);
      expect(await repo.find('live', 'previous.com')).toBeDefined();
    });

    it('keeps listed_at and the sold status of domains imported again', async () => {
      await repo.markSold('live', 'previous.com');
      const path = file('again.json', JSON.stringify([{ domain: 'previous.com', price_cents: 900, floor_cents: 500 }]));
      expect(await importInventoryFile(opened.db, 'live', path, { now: 99 })).toMatchObject({
        ok: true,
        imported: 1,
        keptSold: 1,
      });
      expect(await repo.find('live', 'previous.com')).toMatchObject({ status: 'sold', listed_at: 1, price_cents: 900 });
    });
  });
}
