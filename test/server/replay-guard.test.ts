// The group-committed nonce and rate-limit writes (server/store/replay-guard.ts): requests that
// arrive together share a transaction, yet each gets exactly the answer it would get alone.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { postgresUrl } from './harness.ts';

const pg = postgresUrl();
const dialects: Array<[string, () => Promise<Store>]> = [
  ['sqlite', async () => createStore(await openDatabase({ filename: ':memory:' }), secretBox(randomBytes(32)))],
  ...(pg
    ? ([['postgres', async () => createStore(await openDatabase({ databaseUrl: pg, schema: `t_${randomBytes(6).toString('hex')}` }), secretBox(randomBytes(32)))]] as Array<
        [string, () => Promise<Store>]
      >)
    : []),
];

describe.each(dialects)('replay guard on %s', (_name, open) => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('of 50 concurrent requests with one nonce, exactly one is fresh; other nonces and other key ids are unaffected', async () => {
    store = await open();
    const now = Date.now();
    const same = await Promise.all(Array.from({ length: 50 }, () => store!.replayGuard.recordNonce('pk_a', 'n-1', now + 360_000, now)));
    expect(same.filter(Boolean)).toHaveLength(1);
    const mixed = await Promise.all([
      store.replayGuard.recordNonce('pk_a', 'n-2', now + 360_000, now),
      store.replayGuard.recordNonce('pk_b', 'n-1', now + 360_000, now),
      store.replayGuard.recordNonce('pk_a', 'n-1', now + 360_000, now),
      store.replayGuard.recordNonce('pk_a', 'n-2', now + 360_000, now),
    ]);
    expect(mixed).toEqual([true, true, false, false]);
  });

  it('a nonce whose retention has passed is fresh again', async () => {
    store = await open();
    const now = Date.now();
    expect(await store.replayGuard.recordNonce('pk_a', 'old', now + 1000, now)).toBe(true);
    expect(await store.replayGuard.recordNonce('pk_a', 'old', now + 1000, now + 500)).toBe(false);
    expect(await store.replayGuard.recordNonce('pk_a', 'old', now + 5000, now + 2000)).toBe(true);
  });

  it('concurrent hits on one bucket get the counts 1..n, each once, and share the window', async () => {
    store = await open();
    const now = 1_700_000_000_000;
    const results = await Promise.all(Array.from({ length: 40 }, () => store!.replayGuard.hit('pk_a:search', now, 60_000)));
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.windowStart))).toEqual(new Set([now]));
    // Another bucket in the same batch counts on its own.
    const [a, b] = await Promise.all([store.replayGuard.hit('pk_a:search', now + 10, 60_000), store.replayGuard.hit('pk_a:write', now + 10, 60_000)]);
    expect(a).toEqual({ count: 41, windowStart: now });
    expect(b).toEqual({ count: 1, windowStart: now + 10 });
  });

  it('hits at two instants in one batch are counted in order, and a hit after the window opens a new one', async () => {
    store = await open();
    const now = 1_700_000_000_000;
    const [first, second, third] = await Promise.all([
      store.replayGuard.hit('b', now, 60_000),
      store.replayGuard.hit('b', now + 5, 60_000),
      store.replayGuard.hit('b', now + 5, 60_000),
    ]);
    expect([first?.count, second?.count, third?.count]).toEqual([1, 2, 3]);
    const [late, later] = await Promise.all([store.replayGuard.hit('b', now + 60_000, 60_000), store.replayGuard.hit('b', now + 60_000, 60_000)]);
    expect(late).toEqual({ count: 1, windowStart: now + 60_000 });
    expect(later).toEqual({ count: 2, windowStart: now + 60_000 });
  });

  it('inside a transaction the writes are the transaction’s own (rolled back with it)', async () => {
    store = await open();
    const now = Date.now();
    await expect(
      store.transaction(async (tx) => {
        expect(await tx.replayGuard.recordNonce('pk_a', 'in-tx', now + 360_000, now)).toBe(true);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.replayGuard.recordNonce('pk_a', 'in-tx', now + 360_000, now)).toBe(true);
  });
});
