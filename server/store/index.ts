// The store: every repository bound to one database (or to one transaction of it).
// Route modules talk to these, never to SQL.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../security/secret-box.ts';
import { credentialRepository } from './credentials.ts';
import type { OpenedDatabase } from './database.ts';
import { eventRepository } from './events.ts';
import { idempotencyRepository } from './idempotency.ts';
import { inventoryRepository } from './inventory.ts';
import { orderRepository } from './orders.ts';
import { replayGuardRepository } from './replay-guard.ts';
import type { Database } from './schema.ts';

export function repositories(db: Kysely<Database>, box: SecretBox) {
  return {
    credentials: credentialRepository(db, box),
    replayGuard: replayGuardRepository(db),
    inventory: inventoryRepository(db),
    orders: orderRepository(db),
    events: eventRepository(db, box),
    idempotency: idempotencyRepository(db),
  };
}

export type Repositories = ReturnType<typeof repositories>;

export interface Store extends Repositories {
  dialect: OpenedDatabase['dialect'];
  db: Kysely<Database>;
  /** Runs `work` in one transaction: all its writes land together or not at all. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Deletes expired nonces, rate-limit windows and idempotency records. */
  purge(now: number): Promise<void>;
  close(): Promise<void>;
}

export function createStore(opened: OpenedDatabase, box: SecretBox): Store {
  const repos = repositories(opened.db, box);
  return {
    ...repos,
    dialect: opened.dialect,
    db: opened.db,
    transaction: (work) => opened.db.transaction().execute((trx) => work(repositories(trx, box))),
    async purge(now) {
      await repos.replayGuard.purge(now);
      await repos.idempotency.purge(now);
    },
    close: () => opened.close(),
  };
}
