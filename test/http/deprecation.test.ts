// A deprecated operation's answers announce it from its x-deprecation, and a document that
// deprecates without dates (or with a sunset under 90 days) is refused at start-up.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { deprecationHeaders } from '../../server/http/deprecation.ts';
import { ApiContract, Contract } from '../../server/contract/index.ts';
import { matchOperation } from '../../server/http/match-operation.ts';

const documentWith = (op: Record<string, unknown>) => ({
  paths: { '/things': { get: { operationId: 'listThings', ...op } }, '/other': { get: { operationId: 'other' } } },
});

describe('deprecation headers', () => {
  it('carry Deprecation, Sunset and Link on the deprecated operation only', async () => {
    const table = new ApiContract(
      'public',
      documentWith({
        deprecated: true,
        'x-deprecation': {
          deprecated_at: '2027-01-01T00:00:00Z',
          sunset: '2027-05-01T00:00:00Z',
          link: 'https://example.com/docs/things',
        },
      }),
    );
    const app = express();
    app.use(matchOperation(table), deprecationHeaders(), (_req, res) => void res.json({}));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${base}/things`);
      expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2027, 0, 1) / 1000}`);
      expect(res.headers.get('sunset')).toBe('Sat, 01 May 2027 00:00:00 GMT');
      expect(res.headers.get('link')).toBe('<https://example.com/docs/things>; rel="deprecation"');
      const other = await fetch(`${base}/other`);
      expect(other.headers.get('deprecation')).toBeNull();
      expect(other.headers.get('sunset')).toBeNull();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuse a deprecated operation without dates or with a sunset under 90 days', () => {
    expect(() => new ApiContract('public', documentWith({ deprecated: true }))).toThrow(/x-deprecation/);
    expect(
      () =>
        new ApiContract(
          'public',
          documentWith({
            deprecated: true,
            'x-deprecation': {
              deprecated_at: '2027-01-01T00:00:00Z',
              sunset: '2027-03-01T00:00:00Z',
              link: 'https://example.com',
            },
          }),
        ),
    ).toThrow(/90 days/);
  });

  it('the shipped documents deprecate nothing without dates', async () => {
    expect(() => Contract.load()).not.toThrow();
  });
});
