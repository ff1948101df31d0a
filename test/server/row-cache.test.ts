// Hot rows kept in memory on embedded SQLite (server/store/row-cache.ts): served from memory
// while nothing changed, and never stale after a change by this connection (in or out of a
// transaction) or by another connection on the same file.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp-folder.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase, type OpenedDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { rowCache, trusting, type ReadMark } from '../../server/store/row-cache.ts';

interface Row {
  id: string;
  v: number;
}

function fixture() {
  const file = join(tempFolder('row-cache-'), 'db.sqlite');
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec(
    'create table things (id text primary key, v integer not null); create table others (id text primary key)',
  );
  sqlite.prepare('insert into things values (?, ?)').run('a', 1);
  const select = sqlite.prepare('select id, v from things where id = ?');
  const cache = rowCache(sqlite, ['things', 'others']);
  let loads = 0;
  // `since`: the mark of the request reading (a fresh check when absent).
  const read = (id: string, since?: ReadMark) =>
    cache.read<Row>(
      'things',
      id,
      () => {
        loads++;
        return sqlite.inTransaction ? undefined : (select.all(id) as Row[]);
      },
      since,
    );
  return { file, sqlite, cache, read, loads: () => loads };
}

const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

describe('row cache', () => {
  it('serves a kept key from memory, frozen, and loads each new key once', () => {
    const f = fixture();
    opened.push(f.sqlite);
    expect(f.read('a')).toEqual([{ id: 'a', v: 1 }]);
    expect(f.read('a')).toEqual([{ id: 'a', v: 1 }]);
    expect(f.loads()).toBe(1);
    expect(f.read('missing')).toEqual([]);
    expect(f.read('missing')).toEqual([]);
    expect(f.loads()).toBe(2);
    const rows = f.read('a') as Row[];
    expect(Object.isFrozen(rows) && Object.isFrozen(rows[0])).toBe(true);
  });

  it('drops the table’s rows when this connection inserts, updates or deletes, and only that table’s', () => {
    const f = fixture();
    opened.push(f.sqlite);
    f.read('a');
    f.sqlite.prepare('update things set v = 2 where id = ?').run('a');
    expect(f.read('a')).toEqual([{ id: 'a', v: 2 }]);
    f.sqlite.prepare('insert into things values (?, ?)').run('b', 7);
    expect(f.read('b')).toEqual([{ id: 'b', v: 7 }]);
    f.sqlite.prepare('delete from things where id = ?').run('a');
    expect(f.read('a')).toEqual([]);
    const before = f.loads();
    f.sqlite.prepare('insert into others values (?)').run('x');
    f.read('a');
    expect(f.loads()).toBe(before);
  });

  it('sees a commit by another connection on the same file at the next read', () => {
    const f = fixture();
    const other = new BetterSqlite3(f.file);
    opened.push(f.sqlite, other);
    expect(f.read('a')).toEqual([{ id: 'a', v: 1 }]);
    other.prepare('update things set v = 3 where id = ?').run('a');
    expect(f.read('a')).toEqual([{ id: 'a', v: 3 }]);
    // A change to a table nobody watches on the other side still drops everything: the version
    // tells only that something was committed.
    other.prepare('insert into others values (?)').run('y');
    const before = f.loads();
    f.read('a');
    expect(f.loads()).toBe(before + 1);
  });

  it('a request shares a version check made after it arrived, and always sees what was committed before', () => {
    const f = fixture();
    const other = new BetterSqlite3(f.file);
    opened.push(f.sqlite, other);
    const read = (since: ReadMark) => f.read('a', since);
    other.prepare('update things set v = 2 where id = ?').run('a');
    const arrived = f.cache.mark();
    // Committed before the request arrived: its first read checks and sees it.
    expect(read(arrived)).toEqual([{ id: 'a', v: 2 }]);
    // Committed after: the request may be ordered first, and its later reads share that check.
    other.prepare('update things set v = 3 where id = ?').run('a');
    expect(read(arrived)).toEqual([{ id: 'a', v: 2 }]);
    // A request arriving now checks again.
    expect(read(f.cache.mark())).toEqual([{ id: 'a', v: 3 }]);
  });

  it('a trusting read skips the check; a version read elsewhere (observe) then tells whether it may have been stale', () => {
    const f = fixture();
    const other = new BetterSqlite3(f.file);
    opened.push(f.sqlite, other);
    const version = f.sqlite.prepare('pragma data_version').pluck();
    const read = (since: ReadMark) => f.read('a', since);
    expect(read(f.cache.mark())).toEqual([{ id: 'a', v: 1 }]);
    const quiet = f.cache.mark();
    expect(read(trusting(quiet))).toEqual([{ id: 'a', v: 1 }]);
    expect(f.cache.observe(version.get())).toBe(quiet.epoch);

    other.prepare('update things set v = 4 where id = ?').run('a');
    const arrived = f.cache.mark();
    // From memory as it stands: the row read before the other connection's commit.
    expect(read(trusting(arrived))).toEqual([{ id: 'a', v: 1 }]);
    // The check, made inside a transaction as the signed request's write makes it, moves the epoch
    // and drops the kept rows; a read with the request's own mark then needs no check of its own.
    f.sqlite.exec('begin immediate');
    const epoch = f.cache.observe(version.get());
    f.sqlite.exec('commit');
    expect(epoch).not.toBe(arrived.epoch);
    expect(read(arrived)).toEqual([{ id: 'a', v: 4 }]);
  });

  it('serves and keeps nothing inside a transaction, and a rolled-back change leaves the committed row', () => {
    const f = fixture();
    opened.push(f.sqlite);
    f.read('a');
    f.sqlite.exec('begin');
    f.sqlite.prepare('update things set v = 9 where id = ?').run('a');
    expect(f.read('a')).toBeUndefined();
    f.sqlite.exec('rollback');
    expect(f.read('a')).toEqual([{ id: 'a', v: 1 }]);
    f.sqlite.exec('begin');
    f.sqlite.prepare('update things set v = 5 where id = ?').run('a');
    f.sqlite.exec('commit');
    expect(f.read('a')).toEqual([{ id: 'a', v: 5 }]);
  });

  it('keeps at most 10,000 keys a table, dropping the oldest', () => {
    const f = fixture();
    opened.push(f.sqlite);
    for (let i = 0; i <= 10_000; i++) f.read(`k${i}`);
    const loads = f.loads();
    f.read('k10000');
    expect(f.loads()).toBe(loads);
    f.read('k0');
    expect(f.loads()).toBe(loads + 1);
  });

  it('refuses a table it does not watch', () => {
    const f = fixture();
    opened.push(f.sqlite);
    expect(() => f.cache.read('nope', 'k', () => [])).toThrow(/not watched/);
  });
});

describe('kept credentials and listings in the store', () => {
  const open = async (dataDir: string, key: Buffer): Promise<Store> => {
    const db: OpenedDatabase = await openDatabase({ dataDir });
    const store = createStore(db, secretBox(key));
    opened.push(store);
    return store;
  };
  const credential = (keyId: string, scopes: string[]) => ({
    keyId,
    partnerId: 'p1',
    environment: 'sandbox' as const,
    secret: 'sk_test_secret',
    scopes,
    affiliate: false,
    approved: true,
    rateLimits: {},
    createdAt: 1,
  });

  it('a second process’s change to a credential or a listing is seen by the first at once', async () => {
    const dataDir = tempFolder('row-cache-store-');
    const key = Buffer.alloc(32, 7);
    const first = await open(dataDir, key);
    const second = await open(dataDir, key);
    await first.credentials.createPartner({ id: 'p1', environment: 'sandbox', clockOffsetMs: 0, createdAt: 1 });
    await first.credentials.createCredential(credential('pk_test_1', ['search']));
    expect((await first.credentials.findCredential('pk_test_1'))?.scopes).toEqual(['search']);
    await second.db
      .updateTable('credentials')
      .set({ scopes: JSON.stringify(['search', 'buy']) })
      .where('key_id', '=', 'pk_test_1')
      .execute();
    expect((await first.credentials.findCredential('pk_test_1'))?.scopes).toEqual(['search', 'buy']);
    await second.db.deleteFrom('credentials').where('key_id', '=', 'pk_test_1').execute();
    expect(await first.credentials.findCredential('pk_test_1')).toBeUndefined();

    const listed = {
      domain: 'kept.example',
      label: 'kept',
      tld: 'example',
      price_cents: 1000,
      floor_cents: 900,
      currency: 'USD',
      category: 'uncategorised',
      keywords: ['kept'],
      listed_at: 1,
    };
    await first.inventory.replaceEnvironment('sandbox', [listed]);
    expect((await first.inventory.find('sandbox', listed.domain))?.status).toBe('listed');
    await second.db
      .updateTable('inventory')
      .set({ status: 'sold' })
      .where('environment', '=', 'sandbox')
      .where('domain', '=', listed.domain)
      .execute();
    expect((await first.inventory.find('sandbox', listed.domain))?.status).toBe('sold');
    await first.inventory.replaceEnvironment('sandbox', [{ ...listed, price_cents: 2000 }]);
    expect((await first.inventory.find('sandbox', listed.domain))?.price_cents).toBe(2000);
  });

  it('makes a kept credential once: the same frozen object until its row changes', async () => {
    const store = await open(tempFolder('row-cache-store-'), Buffer.alloc(32, 5));
    await store.credentials.createPartner({ id: 'p1', environment: 'sandbox', clockOffsetMs: 0, createdAt: 1 });
    await store.credentials.createCredential(credential('pk_test_4', ['search']));
    const found = await store.credentials.findCredential('pk_test_4');
    expect(found).toEqual(credential('pk_test_4', ['search']));
    expect(await store.credentials.findCredential('pk_test_4')).toBe(found);
    // Shared by every request of the key: nobody may change it.
    expect(Object.isFrozen(found) && Object.isFrozen(found?.scopes) && Object.isFrozen(found?.rateLimits)).toBe(true);
    await store.credentials.updateCredential('pk_test_4', { scopes: ['search', 'buy'], rateLimits: { search: 5 } });
    const changed = await store.credentials.findCredential('pk_test_4');
    expect(changed).not.toBe(found);
    expect(changed?.scopes).toEqual(['search', 'buy']);
    expect(changed?.rateLimits).toEqual({ search: 5 });
  });

  it('a change inside the store’s transaction is seen once it commits, and not if it rolls back', async () => {
    const store = await open(tempFolder('row-cache-store-'), Buffer.alloc(32, 9));
    await store.credentials.createPartner({ id: 'p1', environment: 'sandbox', clockOffsetMs: 0, createdAt: 1 });
    await store.credentials.createCredential(credential('pk_test_2', ['search']));
    expect((await store.credentials.findCredential('pk_test_2'))?.scopes).toEqual(['search']);
    await expect(
      store.transaction(async (tx) => {
        await tx.credentials.createCredential(credential('pk_test_3', ['buy']));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.credentials.findCredential('pk_test_3')).toBeUndefined();
    await store.transaction(async (tx) => tx.credentials.createCredential(credential('pk_test_3', ['buy'])));
    expect((await store.credentials.findCredential('pk_test_3'))?.scopes).toEqual(['buy']);
  });
});
