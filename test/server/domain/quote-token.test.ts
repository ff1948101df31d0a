import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { issueQuote, quoteError, readQuote, type IssueQuoteInput } from '../../../server/domain/quote-token.ts';
import { seal } from '../../../server/domain/signed-token.ts';
import { at, loadYaml, partnerSchema } from './spec.ts';

const KEY = Buffer.from('quote-test-key-0123456789abcdef0123456789abcdef');
const OTHER_KEY = Buffer.from('another-deployment-key-0123456789abcdef');
const ISSUED = Date.UTC(2026, 10, 22, 9, 30, 0);

const quoteIdSchema = partnerSchema('QuoteId') as { pattern: string; minLength: number; maxLength: number };
const validitySeconds = at(loadYaml('spec/partner/paths/quotes.yaml'), 'post', 'x-quote-validity-seconds') as number;

const base: IssueQuoteInput = {
  key: KEY,
  domain: 'bestcoffeebeans.com',
  priceCents: 250_000,
  currency: 'USD',
  partnerId: 'ptn_01JD9PZ3K7',
  environment: 'sandbox',
  issuedAt: ISSUED,
};
const ctx = { partnerId: base.partnerId, environment: base.environment, now: ISSUED };

describe('issueQuote / readQuote', () => {
  it('round-trips domain, price, currency, partner and expiry', () => {
    const { quoteId, expiresAt } = issueQuote(base);
    expect(expiresAt).toBe(ISSUED + validitySeconds * 1000);
    expect(readQuote(KEY, quoteId, ctx)).toEqual({
      ok: true,
      payload: {
        domain: base.domain,
        priceCents: base.priceCents,
        currency: base.currency,
        partnerId: base.partnerId,
        environment: base.environment,
        issuedAt: ISSUED,
        expiresAt,
      },
    });
  });

  it('produces ids that satisfy the QuoteId schema and carry the qt_ prefix', () => {
    fc.assert(
      fc.property(
        fc.domain(),
        fc.nat(),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (domain, priceCents, partnerId) => {
          const { quoteId } = issueQuote({ ...base, domain, priceCents, partnerId });
          expect(quoteId.startsWith('qt_')).toBe(true);
          expect(quoteId).toMatch(new RegExp(quoteIdSchema.pattern));
          expect(quoteId.length).toBeGreaterThanOrEqual(quoteIdSchema.minLength);
          expect(quoteId.length).toBeLessThanOrEqual(quoteIdSchema.maxLength);
          expect(readQuote(KEY, quoteId, { ...ctx, partnerId }).ok).toBe(true);
        },
      ),
    );
  });

  it('fits the longest domain name (253 characters) in the schema maxLength', () => {
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(domain.length).toBe(253);
    expect(issueQuote({ ...base, domain, partnerId: 'ptn_'.padEnd(64, 'x') }).quoteId.length).toBeLessThanOrEqual(
      quoteIdSchema.maxLength,
    );
  });

  it('is valid for 10 minutes: up to the last millisecond before expires_at, not at it', () => {
    const { quoteId, expiresAt } = issueQuote(base);
    expect(readQuote(KEY, quoteId, { ...ctx, now: expiresAt - 1 }).ok).toBe(true);
    expect(readQuote(KEY, quoteId, { ...ctx, now: expiresAt })).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('honours another validity', () => {
    expect(issueQuote({ ...base, validitySeconds: 30 }).expiresAt).toBe(ISSUED + 30_000);
  });

  it("refuses another partner's or environment's quote as foreign", () => {
    const { quoteId } = issueQuote(base);
    expect(readQuote(KEY, quoteId, { ...ctx, partnerId: 'ptn_OTHER' })).toEqual({ ok: false, reason: 'foreign' });
    expect(readQuote(KEY, quoteId, { ...ctx, environment: 'live' })).toEqual({ ok: false, reason: 'foreign' });
  });

  it('refuses a quote signed with another key as tampered', () => {
    const { quoteId } = issueQuote({ ...base, key: OTHER_KEY });
    expect(readQuote(KEY, quoteId, ctx)).toEqual({ ok: false, reason: 'tampered' });
  });

  it('checks the signature before ownership and expiry, and ownership before expiry', () => {
    const forged = issueQuote({ ...base, key: OTHER_KEY }).quoteId;
    expect(readQuote(KEY, forged, { ...ctx, partnerId: 'x', now: ISSUED + 10 ** 9 })).toEqual({
      ok: false,
      reason: 'tampered',
    });
    const genuine = issueQuote(base).quoteId;
    expect(readQuote(KEY, genuine, { ...ctx, partnerId: 'x', now: ISSUED + 10 ** 9 })).toEqual({
      ok: false,
      reason: 'foreign',
    });
  });

  it('refuses a body of another quote under a genuine signature', () => {
    const a = issueQuote(base).quoteId;
    const b = issueQuote({ ...base, priceCents: 1 }).quoteId;
    const [payloadB] = b.slice(3).split('.');
    const [, sigA] = a.slice(3).split('.');
    expect(readQuote(KEY, `qt_${payloadB}.${sigA}`, ctx)).toEqual({ ok: false, reason: 'tampered' });
  });

  it('rejects every single-character change, deletion and insertion', () => {
    const { quoteId } = issueQuote(base);
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~=+/ %'.split(''),
    );
    fc.assert(
      fc.property(
        fc.nat(quoteId.length - 1),
        alphabet,
        fc.constantFrom('replace', 'delete', 'insert'),
        (i, c, kind) => {
          const changed =
            kind === 'replace'
              ? quoteId.slice(0, i) + c + quoteId.slice(i + 1)
              : kind === 'delete'
                ? quoteId.slice(0, i) + quoteId.slice(i + 1)
                : quoteId.slice(0, i) + c + quoteId.slice(i);
          fc.pre(changed !== quoteId);
          expect(readQuote(KEY, changed, ctx).ok).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rejects each position changed to each base64url character, exhaustively at the end of both parts', () => {
    // The last character of an unpadded base64url text carries spare bits; a lenient decoder
    // would map two spellings to the same bytes.
    const { quoteId } = issueQuote(base);
    const dot = quoteId.indexOf('.');
    for (const i of [dot - 1, quoteId.length - 1]) {
      for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
        const changed = quoteId.slice(0, i) + c + quoteId.slice(i + 1);
        if (changed !== quoteId) expect(readQuote(KEY, changed, ctx).ok, changed).toBe(false);
      }
    }
  });

  it('calls structurally broken ids malformed', () => {
    const { quoteId } = issueQuote(base);
    for (const bad of [
      '',
      'qt_',
      'qt_.',
      'qt_abc',
      quoteId.replace('qt_', 'qx_'),
      quoteId.slice(3),
      `${quoteId}.x`,
      quoteId.replace('.', ''),
    ]) {
      expect(readQuote(KEY, bad, ctx), bad).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('calls a verified payload of the wrong shape malformed', () => {
    const odd = seal(KEY, 'quote.v1', 'qt_', JSON.stringify({ v: 2, d: 'x.com' }));
    expect(readQuote(KEY, odd, ctx)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('does not accept a cursor signed with the same key as a quote', () => {
    const cursorLike = seal(KEY, 'cursor.v1', 'qt_', JSON.stringify({ v: 1 }));
    expect(readQuote(KEY, cursorLike, ctx)).toEqual({ ok: false, reason: 'tampered' });
  });
});

describe('quoteError (x-status-of-code)', () => {
  it('maps expiry to 422 quote_expired with the expiry time, as the spec example words it', () => {
    const example = at(loadYaml('spec/partner/components/responses.yaml'), 'components', 'responses');
    const text = JSON.stringify(example);
    const { quoteId, expiresAt } = issueQuote({ ...base, issuedAt: Date.UTC(2026, 10, 22, 9, 30, 0) });
    const result = readQuote(KEY, quoteId, { ...ctx, now: expiresAt });
    if (result.ok) throw new Error('expected a refusal');
    const error = quoteError(result);
    expect(error).toMatchObject({ status: 422, code: 'quote_expired' });
    // The spec's example: "Quote expired at 2026-11-22T09:40:00Z".
    expect(text).toContain(error.message);
  });

  it('maps tampered, foreign and malformed to 400 validation_error with the same message', () => {
    const errors = (['tampered', 'foreign', 'malformed'] as const).map((reason) => quoteError({ ok: false, reason }));
    for (const e of errors)
      expect(e).toMatchObject({ status: 400, code: 'validation_error', details: [{ path: '/body/quote_id' }] });
    expect(new Set(errors.map((e) => e.message)).size).toBe(1);
  });
});
