import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTimestamp } from '../../../client/protocol/index.ts';
import { NONCE_RETENTION_MARGIN_SECONDS, nonceExpiresAt } from '../../../server/domain/nonce.ts';
import { PARTNER_ROOT, at, loadYaml } from './spec.ts';

/** How the store (store/replay-guard.ts) judges a stored nonce: forgotten once expires_at is before now. */
const isNonceExpired = (expiresAtSeconds: number, nowSeconds: number) => expiresAtSeconds * 1000 < nowSeconds * 1000;

const skew = at(loadYaml(PARTNER_ROOT), 'x-signing', 'timestamp-skew-seconds') as number;

describe('nonce retention (partner x-signing nonce)', () => {
  it('keeps a nonce until its timestamp is more than the skew in the past, plus a small margin', () => {
    expect(skew).toBe(300);
    expect(nonceExpiresAt(1_795_833_600)).toBe(1_795_833_600 + skew + NONCE_RETENTION_MARGIN_SECONDS);
    expect(NONCE_RETENTION_MARGIN_SECONDS).toBeGreaterThanOrEqual(0);
    expect(NONCE_RETENTION_MARGIN_SECONDS).toBeLessThanOrEqual(skew);
  });

  it('still remembers the nonce whenever a replay would pass the timestamp check', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9_999_999_999 }),
        fc.integer({ min: -400, max: 400 }),
        fc.nat(999),
        (t, offset, ms) => {
          const now = t + offset + ms / 1000;
          if (checkTimestamp(String(t), now) === 'ok') expect(isNonceExpired(nonceExpiresAt(t), now)).toBe(false);
        },
      ),
    );
  });

  it('lets the store forget it afterwards, so storage stays bounded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_999 }), fc.integer({ min: 1, max: 10 ** 6 }), (t, later) => {
        const expiresAt = nonceExpiresAt(t);
        expect(isNonceExpired(expiresAt, expiresAt + later)).toBe(true);
        expect(isNonceExpired(expiresAt, expiresAt)).toBe(false);
      }),
    );
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => nonceExpiresAt(1.5)).toThrow(RangeError);
    expect(() => nonceExpiresAt(Number.NaN)).toThrow(RangeError);
  });
});
