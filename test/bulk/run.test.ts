// runBulk and the user-domain repository on their own: the compare-and-set that keeps a bulk
// write from overwriting a concurrent change, and per-user isolation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addYears } from '../../server/bulk/operations.ts';
import { runBulk } from '../../server/bulk/run.ts';
import { SANDBOX_USER_DOMAINS, seedUserDomains } from '../../server/bulk/seed.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Repositories, type Store } from '../../server/store/index.ts';

const NOW = Date.parse('2026-11-22T10:00:00Z');
let store: Store;

beforeAll(async () => {
  store = createStore(await openDatabase({ filename: ':memory:' }), secretBox(randomBytes(32)));
});
afterAll(async () => {
  await store.close();
});

describe('seedUserDomains', () => {
  it('adds the sandbox domains once, and never takes a domain someone else owns', async () => {
    await store.userDomains.insertIfAbsent(
      'usr_other',
      [{ domain: SANDBOX_USER_DOMAINS[0] as string, expiresAt: NOW, locked: false, autoRenew: false, nameservers: [] }],
      NOW,
    );
    expect(await seedUserDomains(store, 'usr_seed', NOW)).toBe(SANDBOX_USER_DOMAINS.length - 1);
    expect(await seedUserDomains(store, 'usr_seed', NOW + 1000)).toBe(0);
    const mine = await store.userDomains.listOwned('usr_seed');
    expect(mine).toHaveLength(SANDBOX_USER_DOMAINS.length - 1);
    expect(mine.map((d) => d.domain)).not.toContain(SANDBOX_USER_DOMAINS[0]);
  });
});

describe('the compare-and-set', () => {
  it('a write from a stale version changes nothing', async () => {
    const domain = SANDBOX_USER_DOMAINS[1] as string;
    const current = (await store.userDomains.findOwned('usr_seed', [domain])).get(domain);
    expect(current).toBeDefined();
    const change = { expiresAt: NOW, locked: true, autoRenew: true, nameservers: ['ns1.z.net', 'ns2.z.net'] };
    expect(await store.userDomains.update('usr_seed', domain, (current?.version ?? 0) + 7, change, NOW)).toBe(false);
    expect(await store.userDomains.update('usr_other', domain, current?.version ?? 0, change, NOW)).toBe(false);
    expect((await store.userDomains.findOwned('usr_seed', [domain])).get(domain)).toEqual(current);
  });

  it('runBulk recomputes a domain changed between its read and its write', async () => {
    const domain = SANDBOX_USER_DOMAINS[2] as string;
    const before = (await store.userDomains.findOwned('usr_seed', [domain])).get(domain)?.expiresAt as number;
    let interfered = false;
    // Another writer renews the domain by a year right after runBulk has read it, once.
    const racing: Store = {
      ...store,
      transaction: <T>(work: (tx: Repositories) => Promise<T>) =>
        store.transaction((tx) =>
          work({
            ...tx,
            userDomains: {
              ...tx.userDomains,
              async findOwned(userId, domains) {
                const read = await tx.userDomains.findOwned(userId, domains);
                const row = read.get(domain);
                if (row && !interfered) {
                  interfered = true;
                  await tx.userDomains.update(
                    userId,
                    domain,
                    row.version,
                    { ...row, expiresAt: addYears(row.expiresAt, 1) },
                    NOW,
                  );
                }
                return read;
              },
            },
          }),
        ),
    };
    const result = await runBulk(racing, 'usr_seed', { op: 'renew', years: 2 }, [domain], { now: NOW });
    expect(interfered).toBe(true);
    expect(result.results[0]?.status).toBe('ok');
    // Both renewals count: the bulk one was recomputed from the other's result.
    expect((await store.userDomains.findOwned('usr_seed', [domain])).get(domain)?.expiresAt).toBe(addYears(before, 3));
    expect(result.results[0]?.state?.expires_at).toBe(
      new Date(addYears(before, 3)).toISOString().replace('.000Z', 'Z'),
    );
  });

  it('takes the TLD maximum term from its option', async () => {
    const domain = SANDBOX_USER_DOMAINS[3] as string;
    const result = await runBulk(store, 'usr_seed', { op: 'renew', years: 1 }, [domain], {
      now: NOW,
      maxTermYears: () => 1,
    });
    expect(result.results[0]?.error?.code).toBe('validation_error');
  });
});
