// The published documents (generated/*.openapi.json, served at /openapi.json and
// /api/partner/v1/openapi.json and shipped in @domain-sales/contract) are a plain Redocly bundle of
// spec/, nothing added: no tool in the generation pipeline may edit them on the way.
import { describe, expect, it } from 'vitest';
import { APIS, bundle } from '../../scripts/contract.ts';
import { loadBundle } from './documents.ts';

describe('the published documents', () => {
  it.each(APIS)(
    '%s equals a plain bundle of spec/',
    async (api) => {
      const plain = await bundle(api);
      expect(loadBundle(api)).toEqual(plain);
    },
    120_000,
  );
});
