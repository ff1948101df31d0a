import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BPS_SCALE,
  COMMISSION_DEFAULTS_BPS,
  commissionCents,
  exactCents,
  formatCents,
  isCents,
  sumCents,
} from '../../../server/domain/money.ts';
import { formatPrice } from '../../../server/domain/checkout.ts';
import { PARTNER_ROOT, at, loadYaml } from './spec.ts';

const defaults = at(loadYaml(PARTNER_ROOT), 'x-commission-defaults') as Record<string, unknown>;

describe('x-commission-defaults', () => {
  it('has the default rates of the spec', () => {
    expect(COMMISSION_DEFAULTS_BPS).toEqual({
      partnerCollected: defaults['partner-collected-bps'],
      serviceCollected: defaults['service-collected-bps'],
      referral: defaults['referral-bps'],
      brokerage: defaults['brokerage-bps'],
    });
    expect(defaults.rounding).toBe('half-up-per-order');
    expect(defaults.description).toContain('(sale_price_cents * bps + 5000) / 10000');
  });
});

describe('commissionCents: (price * bps + 5000) / 10000, truncated', () => {
  it.each([
    [250_000, 1000, 25_000], // 10 % of $2,500.00
    [89_000, 500, 4_450],
    [5, 1000, 1], // 0.5 cent: half up
    [4, 1000, 0], // 0.4 cent
    [15, 1000, 2], // 1.5 cents
    [14, 1000, 1],
    [25, 1000, 3], // 2.5 cents: half up, not to even
    [1, 5000, 1], // 0.5 cent
    [1, 4999, 0],
    [0, 1000, 0],
    [123_456, 0, 0],
    [123_456, 10_000, 123_456],
  ])('%i cents at %i bps is %i cents', (price, bps, expected) => {
    expect(commissionCents(price, bps)).toBe(expected);
  });

  const price = fc.oneof(fc.nat(10_000_000), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
  const bps = fc.integer({ min: 0, max: BPS_SCALE });

  it('is never negative and never exceeds the price', () => {
    fc.assert(
      fc.property(price, bps, (p, b) => {
        const c = commissionCents(p, b);
        expect(Number.isSafeInteger(c)).toBe(true);
        expect(c).toBeGreaterThanOrEqual(0);
        expect(c).toBeLessThanOrEqual(p);
      }),
    );
  });

  it('is exact on multiples', () => {
    fc.assert(
      fc.property(fc.nat(10 ** 9), bps, (k, b) => {
        // price * bps is a multiple of 10000 when price is a multiple of 10000.
        expect(commissionCents(k * BPS_SCALE, b)).toBe(k * b);
      }),
    );
  });

  it('is within half a cent, ties going up', () => {
    fc.assert(
      fc.property(price, bps, (p, b) => {
        const exact = BigInt(p) * BigInt(b);
        const diff = BigInt(commissionCents(p, b)) * 10_000n - exact;
        expect(diff > -5000n && diff <= 5000n).toBe(true);
      }),
    );
  });

  it('does not lose precision where price * bps passes 2^53', () => {
    expect(commissionCents(Number.MAX_SAFE_INTEGER, 10_000)).toBe(Number.MAX_SAFE_INTEGER);
    expect(commissionCents(Number.MAX_SAFE_INTEGER, 1000)).toBe(900_719_925_474_099); // 900719925474099.1
  });

  it('refuses amounts that are not cents', () => {
    for (const [p, b] of [
      [-1, 1000],
      [1.5, 1000],
      [100, -1],
      [100, 0.5],
      [Number.NaN, 1],
    ] as const) {
      expect(() => commissionCents(p, b)).toThrow(RangeError);
    }
  });
});

describe('sumCents', () => {
  it('adds exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(10 ** 12), max: 10 ** 12 })), (xs) => {
        expect(BigInt(sumCents(xs))).toBe(xs.reduce((a, x) => a + BigInt(x), 0n));
      }),
    );
  });

  it('reconciles a total with per-order commissions', () => {
    const orders = [5, 5, 5];
    // Per order: 0.5 -> 1 cent each, 3 cents in all; rounding the total (1.5 -> 2) would not reconcile.
    expect(sumCents(orders.map((p) => commissionCents(p, 1000)))).toBe(3);
  });

  it('throws rather than lose a cent', () => {
    expect(() => sumCents([Number.MAX_SAFE_INTEGER, 1])).toThrow(RangeError);
    expect(() => sumCents([0.1, 0.2])).toThrow(RangeError);
    expect(sumCents([])).toBe(0);
  });

  it('isCents accepts non-negative safe integers only', () => {
    expect([0, 1, Number.MAX_SAFE_INTEGER].every(isCents)).toBe(true);
    expect([-1, 0.5, Number.MAX_SAFE_INTEGER + 1, '1', Number.NaN].some(isCents)).toBe(false);
  });
});

describe('formatCents: cents written from integers', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [250_000, '2,500.00'],
    [123_456_789, '1,234,567.89'],
    [Number.MAX_SAFE_INTEGER, '90,071,992,547,409.91'],
    [Number.MAX_SAFE_INTEGER - 1, '90,071,992,547,409.90'],
    [9_007_199_254_740_899, '90,071,992,547,408.99'],
  ])('%i cents is %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('matches the decimal digits of the integer for any safe amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (cents) => {
        const digits = String(cents).padStart(3, '0');
        expect(formatCents(cents).replace(/,/g, '')).toBe(`${digits.slice(0, -2)}.${digits.slice(-2)}`);
      }),
    );
  });

  it('is what the checkout page shows', () => {
    expect(formatPrice(Number.MAX_SAFE_INTEGER, 'USD')).toBe('$90,071,992,547,409.91 USD');
  });

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1])('refuses %d', (cents) => {
    expect(() => formatCents(cents)).toThrow(RangeError);
  });
});

describe('exactCents: a total read from the store', () => {
  it.each([
    [null, 0],
    ['0', 0],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', -Number.MAX_SAFE_INTEGER],
    [42, 42],
    [42n, 42],
  ] as const)('%s is %d', (value, expected) => {
    expect(exactCents(value)).toBe(expected);
  });

  it.each(['9007199254740992', '27021597764222977', 2 ** 53, 0.5])('refuses %s rather than round it', (value) => {
    expect(() => exactCents(value)).toThrow(RangeError);
  });
});
