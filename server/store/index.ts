// The store: every repository bound to one database (or to one transaction of it).
// Route modules talk to these, never to SQL.
import type { Kysely } from 'kysely';
import { OPERATOR_TOKEN_THROTTLE, SIGNIN_THROTTLE } from '../domain/signin-throttle.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { brokerageRepository } from './brokerage.ts';
import { checkoutRepository } from './checkout.ts';
import { credentialRepository } from './credentials.ts';
import type { OpenedDatabase } from './database.ts';
import type { Dialect } from './migrations.ts';
import type { DirectSqlite } from './direct.ts';
import { eventRepository } from './events.ts';
import { idempotencyRepository } from './idempotency.ts';
import { inventoryRepository, type InventoryChange, type InventoryListener } from './inventory.ts';
import { oauthRepository } from './oauth.ts';
import { orderPlacement } from './order-placement.ts';
import { orderRepository } from './orders.ts';
import { referralRepository } from './referral.ts';
import { nonceLedger, type NonceLedger } from './nonce-ledger.ts';
import { replayGuardRepository } from './replay-guard.ts';
import type { Database } from './schema.ts';
import type { ReadMark } from './row-cache.ts';
import { settlementRepository } from './settlements.ts';
import { signinThrottleRepository } from './signin-throttle.ts';
import { refreshStatistics } from './statistics.ts';
import { userDomainRepository } from './user-domains.ts';

export interface RepositoryOptions {
  dialect: Dialect;
  onInventoryChange?: InventoryListener | undefined;
  /** Only for the database itself, never inside a transaction (store/direct.ts). */
  direct?: DirectSqlite | undefined;
  /** SQLite: the database's one nonce ledger, shared by its transactions (store/nonce-ledger.ts). */
  ledger?: NonceLedger | undefined;
  /** PostgreSQL: the pool whose commits do not wait for the disk (database.ts); never inside a transaction. */
  relaxed?: Kysely<Database> | undefined;
}

export function repositories(
  db: Kysely<Database>,
  box: SecretBox,
  { dialect, onInventoryChange, direct, ledger, relaxed }: RepositoryOptions,
) {
  const credentials = credentialRepository(db, box, direct, dialect === 'postgres');
  const idempotency = idempotencyRepository(db, { ...(direct ? { direct } : {}), ...(relaxed ? { relaxed } : {}) });
  return {
    credentials,
    replayGuard: replayGuardRepository(db, {
      ...(direct ? { direct } : {}),
      ...(ledger ? { ledger } : {}),
      ...(relaxed ? { relaxed } : {}),
    }),
    inventory: inventoryRepository(db, onInventoryChange, direct),
    orders: orderRepository(db, dialect, direct),
    placement: orderPlacement(db, dialect === 'postgres', direct, {
      idempotency,
      findPartner: (id) => credentials.findPartner(id),
      relaxed,
    }),
    events: eventRepository(db, box, dialect === 'postgres'),
    idempotency,
    checkout: checkoutRepository(db),
    referral: referralRepository(db),
    brokerage: brokerageRepository(db),
    settlements: settlementRepository(db),
    userDomains: userDomainRepository(db),
    oauth: oauthRepository(db),
    signinThrottle: signinThrottleRepository(db),
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
  /** PostgreSQL: analyses the tables whose statistics are stale (statistics.ts); gives their names. */
  refreshStatistics(): Promise<string[]>;
  /** Now, as a mark for reads of rows kept in memory (row-cache.ts); undefined where none are. */
  readMark(): ReadMark | undefined;
  /** Hears every committed change to the listed inventory (the search index); returns the unsubscribe. */
  onInventoryChange(listener: InventoryListener): () => void;
  close(): Promise<void>;
}

export function createStore(opened: OpenedDatabase, box: SecretBox): Store {
  const listeners = new Set<InventoryListener>();
  const publish = (change: InventoryChange) => listeners.forEach((listener) => listener(change));
  const ledger = opened.dialect === 'sqlite' ? nonceLedger() : undefined;
  const repos = repositories(opened.db, box, {
    dialect: opened.dialect,
    onInventoryChange: publish,
    direct: opened.direct,
    ledger,
    relaxed: opened.relaxed,
  });
  return {
    ...repos,
    dialect: opened.dialect,
    db: opened.db,
    // A transaction's inventory changes are told once it commits, and never if it rolls back.
    async transaction(work) {
      const changes: InventoryChange[] = [];
      const result = await opened.db.transaction().execute((trx) =>
        work(
          repositories(trx, box, {
            dialect: opened.dialect,
            onInventoryChange: (change) => changes.push(change),
            ledger,
          }),
        ),
      );
      changes.forEach(publish);
      return result;
    },
    readMark: () => opened.direct?.mark(),
    onInventoryChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async purge(now) {
      await repos.replayGuard.purge(now);
      await repos.idempotency.purge(now);
      await repos.oauth.purge(now);
      await repos.signinThrottle.purge(
        now,
        Math.max(
          SIGNIN_THROTTLE.account.forgetAfterMs,
          SIGNIN_THROTTLE.address.forgetAfterMs,
          OPERATOR_TOKEN_THROTTLE.address.forgetAfterMs,
        ),
      );
    },
    refreshStatistics: async () => (opened.dialect === 'postgres' ? refreshStatistics(opened.db) : []),
    close: () => opened.close(),
  };
}
