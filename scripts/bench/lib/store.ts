// The database of a server child, opened from the parent: the benchmarks seed it directly (orders
// for the paging benchmark, events for the dispatch benchmark) and the drills audit it.
import { secretBox } from '../../../server/security/secret-box.ts';
import { openDatabase } from '../../../server/store/database.ts';
import { createStore, type Store } from '../../../server/store/index.ts';

export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string | undefined;
  masterKey: string;
}

export async function openServerStore(at: StoreLocation): Promise<Store> {
  const opened = await openDatabase(
    at.databaseUrl ? { databaseUrl: at.databaseUrl, poolSize: 4 } : { dataDir: at.dataDir },
  );
  return createStore(opened, secretBox(Buffer.from(at.masterKey, 'hex')));
}

/** Listed, unsold sandbox domains with their prices (each order consumes one). */
export async function listedInventory(
  store: Store,
  limit: number,
): Promise<Array<{ domain: string; price_cents: number; currency: string }>> {
  return store.db
    .selectFrom('inventory')
    .select(['domain', 'price_cents', 'currency'])
    .where('environment', '=', 'sandbox')
    .where('status', '=', 'listed')
    .orderBy('domain')
    .limit(limit)
    .execute();
}
