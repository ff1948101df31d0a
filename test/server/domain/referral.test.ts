// The pure referral and checkout rules: attribution window, ledger arithmetic, masking, windows,
// destinations, test cards and the checkout token.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  issueCheckoutToken,
  readCheckoutToken,
  returnUrlWithOrder,
  sandboxCardOutcome,
  sessionState,
} from '../../../server/domain/checkout.ts';
import {
  analyticsWindow,
  ATTRIBUTION_WINDOW_MS,
  canMoveCommission,
  isWithinAttributionWindow,
  linkDestination,
  maskEmail,
  runningBalances,
} from '../../../server/domain/referral.ts';

const KEY = Buffer.alloc(32, 7);

describe('referral rules', () => {
  it('attributes up to 30 days after the click, inclusive, never before it', () => {
    expect(isWithinAttributionWindow(1000, 1000)).toBe(true);
    expect(isWithinAttributionWindow(1000, 1000 + ATTRIBUTION_WINDOW_MS)).toBe(true);
    expect(isWithinAttributionWindow(1000, 1001 + ATTRIBUTION_WINDOW_MS)).toBe(false);
    expect(isWithinAttributionWindow(1000, 999)).toBe(false);
  });

  it('the running balance is the prefix sum of the entries and never negative for legal sequences (property)', () => {
    const statuses = fc.constantFrom('accrued', 'pending', 'paid_out', 'reversed' as const);
    fc.assert(
      fc.property(
        fc.array(fc.record({ next: statuses, amount: fc.integer({ min: 0, max: 1e9 }) }), { maxLength: 30 }),
        (moves) => {
          // Replays moves on one commission each, keeping only the legal ones.
          const entries: Array<{ status: 'accrued' | 'pending' | 'paid_out' | 'reversed'; amountCents: number }> = [];
          for (const m of moves) {
            entries.push({ status: 'accrued', amountCents: m.amount });
            if (m.next !== 'accrued' && canMoveCommission('accrued', m.next))
              entries.push({ status: m.next, amountCents: m.amount });
          }
          const balances = runningBalances(entries);
          let sum = 0;
          entries.forEach((e, i) => {
            sum += { accrued: 1, pending: 0, paid_out: -1, reversed: -1 }[e.status] * e.amountCents;
            expect(balances[i]).toBe(sum);
            expect(sum).toBeGreaterThanOrEqual(0);
          });
        },
      ),
    );
  });

  it('moves a commission only forward', () => {
    expect(canMoveCommission('accrued', 'pending')).toBe(true);
    expect(canMoveCommission('pending', 'paid_out')).toBe(true);
    expect(canMoveCommission('accrued', 'paid_out')).toBe(false);
    expect(canMoveCommission('paid_out', 'reversed')).toBe(false);
    expect(canMoveCommission('reversed', 'reversed')).toBe(false);
  });

  it('masks buyers, sends links to the public site and bounds the analytics window', () => {
    expect(maskEmail('jane.doe@example.org')).toBe('j•••@example.org');
    expect(linkDestination('https://x.test', { type: 'domain', domain: 'a.com', product: null }, 'utm_source=n')).toBe(
      'https://x.test/domains/a.com?utm_source=n',
    );
    expect(linkDestination('https://x.test', { type: 'generic', domain: null, product: null }, '')).toBe(
      'https://x.test/',
    );
    expect(analyticsWindow(undefined, undefined, 100 * ATTRIBUTION_WINDOW_MS)).toEqual({
      from: 99 * ATTRIBUTION_WINDOW_MS,
      to: 100 * ATTRIBUTION_WINDOW_MS,
    });
    expect(analyticsWindow(0, undefined, 5)).toEqual({ from: 0, to: 5 });
  });
});

describe('checkout rules', () => {
  it('reads back its own token and nothing altered', () => {
    const pt = issueCheckoutToken(KEY, { sessionId: 'cs_abcdef', partnerId: 'ptn_1', expiresAt: 42 });
    expect(readCheckoutToken(KEY, pt)).toEqual({
      ok: true,
      payload: { sessionId: 'cs_abcdef', partnerId: 'ptn_1', expiresAt: 42 },
    });
    expect(readCheckoutToken(Buffer.alloc(32, 8), pt).ok).toBe(false);
    expect(readCheckoutToken(KEY, pt.replace('pt_', 'qt_')).ok).toBe(false);
  });

  it('expiry is exclusive and a paid session stays paid', () => {
    expect(sessionState({ expiresAt: 10, paid: false }, 9)).toBe('open');
    expect(sessionState({ expiresAt: 10, paid: false }, 10)).toBe('expired');
    expect(sessionState({ expiresAt: 10, paid: true }, 11)).toBe('paid');
  });

  it('knows the sandbox test cards and keeps the return URL query', () => {
    expect(sandboxCardOutcome('4242 4242 4242 4242')).toBe('paid');
    expect(sandboxCardOutcome('4000000000000002')).toBe('declined');
    expect(sandboxCardOutcome('4111111111111111')).toBe('not_a_test_card');
    expect(returnUrlWithOrder('https://p.test/done?a=1', 'ord_X')).toBe('https://p.test/done?a=1&public_id=ord_X');
  });
});
