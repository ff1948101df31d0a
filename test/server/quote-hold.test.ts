// The hold on a domain's quote decisions (store/orders.ts holdQuotesOf) between processes sharing
// one SQLite file: while one holds it, another cannot start writing, so it cannot find the
// domain free and reserve it at the same instant. (Within one process, and on PostgreSQL, the
// concurrent quotes of test/server/orders.test.ts show it.)
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore } from '../../server/store/index.ts';
import { tempFolder } from '../support/temp-folder.ts';

describe('holding quotes of a domain on SQLite', () => {
  it('keeps another process from writing until the holding transaction ends, and only until then', async () => {
    const dataDir = tempFolder('quote-hold-');
    const store = createStore(await openDatabase({ dataDir }), secretBox(Buffer.alloc(32, 3)));
    const other = new BetterSqlite3(join(dataDir, 'service.sqlite'), { timeout: 0 });
    try {
      const tryWrite = () => {
        try {
          other.exec('begin immediate');
          other.exec('rollback');
          return 'wrote';
        } catch (err) {
          return (err as { code?: string }).code;
        }
      };
      await store.transaction(async (tx) => {
        await tx.orders.holdQuotesOf('sandbox', 'example.com');
        expect(tryWrite()).toBe('SQLITE_BUSY');
      });
      expect(tryWrite()).toBe('wrote');
      await expect(store.orders.holdQuotesOf('sandbox', 'example.com')).rejects.toThrow(/inside a transaction/);
    } finally {
      other.close();
      await store.close();
    }
  });
});
