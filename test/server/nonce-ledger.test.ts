// The nonce ledger of embedded SQLite (server/store/nonce-ledger.ts): what it answers for the
// rows it has learned, and forgetting by expiry a slice at a time.
import { describe, expect, it } from 'vitest';
import { nonceLedger, type NonceLogRow } from '../../server/store/nonce-ledger.ts';

let seq = 0;
const row = (key_id: string, nonce: string, expires_at: number): NonceLogRow => ({
  seq: ++seq,
  key_id,
  nonce,
  expires_at,
});

describe('nonce ledger', () => {
  it('answers used until a pair’s retention has passed, per key id', () => {
    const ledger = nonceLedger();
    ledger.learn([row('pk_a', 'n-1', 5_000), row('pk_a', 'n-2', 9_000)]);
    expect(ledger.used('pk_a', 'n-1', 5_000)).toBe(true);
    expect(ledger.used('pk_a', 'n-1', 5_001)).toBe(false);
    expect(ledger.used('pk_a', 'n-2', 5_001)).toBe(true);
    expect(ledger.used('pk_b', 'n-1', 0)).toBe(false);
    expect(ledger.used('pk_a', 'n-3', 0)).toBe(false);
    expect(ledger.size).toBe(2);
    expect(ledger.after).toBe(seq);
  });

  it('keeps a pair logged again with a later expiry, and never lowers an expiry', () => {
    const ledger = nonceLedger();
    ledger.learn([row('pk_a', 'again', 2_000)]);
    ledger.learn([row('pk_a', 'again', 70_000)]);
    ledger.learn([row('pk_a', 'again', 1_000)]);
    expect(ledger.size).toBe(1);
    // The first filing's second has passed: forgetting it leaves the later one.
    expect(ledger.forget(10_000)).toBe(true);
    expect(ledger.used('pk_a', 'again', 10_000)).toBe(true);
    expect(ledger.size).toBe(1);
    // Its own second (70,000 to 70,999) must have passed too.
    expect(ledger.forget(70_001)).toBe(true);
    expect(ledger.size).toBe(1);
    expect(ledger.forget(71_000)).toBe(true);
    expect(ledger.used('pk_a', 'again', 0)).toBe(false);
    expect(ledger.size).toBe(0);
  });

  it('forgets only what has expired, once the second its retention ends in has passed', () => {
    const ledger = nonceLedger();
    ledger.learn([row('pk_a', 'early', 1_500), row('pk_a', 'late', 1_900), row('pk_b', 'later', 3_000)]);
    // At 1,600 `early` has expired but its second (1,000 to 1,999) has not passed: kept, not used.
    expect(ledger.forget(1_600)).toBe(true);
    expect(ledger.size).toBe(3);
    expect(ledger.used('pk_a', 'early', 1_600)).toBe(false);
    expect(ledger.forget(2_000)).toBe(true);
    expect(ledger.size).toBe(1);
    expect(ledger.used('pk_b', 'later', 2_000)).toBe(true);
  });

  it('forgets a slice at a time, whole seconds, and says when nothing expired is left', () => {
    const ledger = nonceLedger();
    // 10 seconds of 300 pairs each, spread over the shards (nonces end in every character pair).
    const rows: NonceLogRow[] = [];
    for (let second = 0; second < 10; second++)
      for (let i = 0; i < 300; i++) rows.push(row('pk_a', `nonce-${second}-${i}`, second * 1_000 + (i % 1_000)));
    ledger.learn(rows);
    ledger.learn([row('pk_a', 'kept', 60_000)]);
    expect(ledger.size).toBe(3_001);
    const sizes: number[] = [];
    let calls = 0;
    for (;;) {
      calls++;
      const done = ledger.forget(20_000, 500);
      sizes.push(ledger.size);
      if (done) break;
    }
    // Two seconds (600 pairs) per call: a second is never split, and the slice is reached after it;
    // the call that forgets the last expired second says so.
    expect(sizes).toEqual([2_401, 1_801, 1_201, 601, 1]);
    expect(calls).toBe(5);
    expect(ledger.used('pk_a', 'kept', 20_000)).toBe(true);
    for (const r of rows) expect(ledger.used(r.key_id, r.nonce, 0)).toBe(false);
  });

  it('keeps nonces apart that differ only in their first characters (the shards go by the last ones)', () => {
    const ledger = nonceLedger();
    const nonces = Array.from({ length: 200 }, (_, i) => `${i}-same-ending-xy`);
    ledger.learn(nonces.map((n, i) => row('pk_a', n, 10_000 + i)));
    expect(ledger.size).toBe(200);
    nonces.forEach((n, i) => {
      expect(ledger.used('pk_a', n, 10_000 + i)).toBe(true);
      expect(ledger.used('pk_a', n, 10_001 + i)).toBe(false);
    });
  });
});
