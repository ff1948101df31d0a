// The nonces of an embedded SQLite database, indexed in memory.
//
// On SQLite the nonces are stored in an append-only log (table nonce_log: a growing rowid and an
// expiry, no index on the nonce), and this ledger is the index: every pair the log holds, with
// when it may be used again. A unique index on random nonces would cost each fresh nonce its
// own b-tree page in the commit; appended rows share one or two (cost per page: bench/README.md,
// "Figures behind design choices").
//
// The database stays the authority. The ledger only ever learns rows that are committed, by
// reading the log past the last row it has seen (`after`), at the start of the write transaction
// that decides a batch: SQLite lets one writer in at a time, so that read includes every row any
// connection or process committed before, and no row can be committed between the read and the
// decision. A batch that rolls back leaves nothing behind; a restart reads the log afresh.
//
// That read finds only this connection's own rows when no other connection has committed since
// the last one. So a write transaction learns the rows it appended once it has committed, and the
// next one skips the read while the ledger is complete: no other connection has committed since
// it last read the log (the kept rows' epoch, row-cache.ts, is the same), and every row this
// connection appended since has been learned (an append whose commit failed, or made in a
// caller's transaction, leaves it incomplete until the next read).
//
// At a steady load the ledger holds every nonce of the retention (six minutes: at 2,800 signed
// requests a second, about 900,000), so its shape is chosen for that: each key id's nonces in
// shards of maps, with no joined key string made and kept per nonce (209 bytes a nonce held
// before, 121 after; bench/README.md), and the pairs filed by the second their retention ends,
// so forgetting touches only what has expired, a slice at a time, instead of scanning everything
// while requests wait.

export interface NonceLogRow {
  seq: number | bigint;
  key_id: string;
  nonce: string;
  expires_at: number | bigint;
}

export interface NonceLedger {
  /** The last log row learned; the next read starts after it. */
  readonly after: number;
  /** Learns committed log rows (in any order). */
  learn(rows: Iterable<NonceLogRow>): void;
  /** Whether the ledger holds every committed row, when the kept rows' epoch is `epoch` now. */
  completeAt(epoch: number): boolean;
  /** The log was read (and learned) in a write transaction at `epoch`: the ledger holds it all. */
  readAt(epoch: number | undefined): void;
  /** Rows are being appended: incomplete until `appended` is told of this append's commit. */
  appending(): Append;
  /** The rows of an append have been committed: learned, and complete again at `epoch` if nothing else was appended since. */
  appended(append: Append, rows: Iterable<NonceLogRow>, epoch: number | undefined): void;
  /** Whether the key id's nonce was used and its retention has not passed at `now`. */
  used(keyId: string, nonce: string, now: number): boolean;
  /**
   * Forgets pairs whose retention has passed at `now`, about `slice` of them at most (whole
   * seconds of them); true once none is left to forget. Keeps memory bounded like the log.
   */
  forget(now: number, slice?: number): boolean;
  readonly size: number;
}

/** One append to the log (`appending`). */
export type Append = number;

export const pairKey = (keyId: string, nonce: string) => `${keyId}\n${nonce}`;

/**
 * Each key id's nonces are spread over this many maps. A map grows, and as it churns compacts, by
 * rehashing all it holds in one step: 61 ms for one insertion at 524,288 entries, while every
 * request waits. A shard's step is a 64th of that.
 */
const SHARDS = 64;

const shardOf = (nonce: string) =>
  (nonce.charCodeAt(nonce.length - 1) ^ (nonce.charCodeAt(nonce.length - 2) << 3)) & (SHARDS - 1);

export function nonceLedger(): NonceLedger {
  // Key id → its nonces' shards → nonce → when its retention ends (ms).
  const byKey = new Map<string, Array<Map<string, number>>>();
  // Second a retention ends → the pairs learned with it, flat: [nonces of key id, nonce, ...].
  const bySecond = new Map<number, Array<Map<string, number> | string>>();
  let size = 0;
  let after = 0;
  // The epoch the ledger is complete at; undefined: not known to be (read the log).
  let complete: number | undefined;
  let appends = 0;
  const learn = (rows: Iterable<NonceLogRow>) => {
    for (const row of rows) {
      const expiresAt = Number(row.expires_at);
      let shards = byKey.get(row.key_id);
      if (!shards) byKey.set(row.key_id, (shards = Array.from({ length: SHARDS }, () => new Map<string, number>())));
      const nonces = shards[shardOf(row.nonce)] as Map<string, number>;
      const known = nonces.get(row.nonce);
      // A pair reused after its retention is logged again, later and with a later expiry.
      if (known === undefined || known < expiresAt) {
        if (known === undefined) size++;
        nonces.set(row.nonce, expiresAt);
        const second = Math.floor(expiresAt / 1000);
        const filed = bySecond.get(second);
        if (filed) filed.push(nonces, row.nonce);
        else bySecond.set(second, [nonces, row.nonce]);
      }
      after = Math.max(after, Number(row.seq));
    }
  };
  return {
    completeAt: (epoch) => complete === epoch,
    readAt(epoch) {
      complete = epoch;
    },
    appending() {
      complete = undefined;
      return ++appends;
    },
    appended(append, rows, epoch) {
      learn(rows);
      if (append === appends && epoch !== undefined) complete = epoch;
    },
    get after() {
      return after;
    },
    get size() {
      return size;
    },
    learn,
    used(keyId, nonce, now) {
      const expiresAt = byKey.get(keyId)?.[shardOf(nonce)]?.get(nonce);
      return expiresAt !== undefined && expiresAt >= now;
    },
    forget(now, slice = Infinity) {
      let budget = slice;
      for (const [second, filed] of bySecond) {
        // Every retention filed under this second has passed only once the second has.
        if ((second + 1) * 1000 > now) continue;
        if (budget <= 0) return false;
        for (let i = 0; i < filed.length; i += 2) {
          const nonces = filed[i] as Map<string, number>;
          const nonce = filed[i + 1] as string;
          // Filed again under a later second when it was logged again: that later filing decides.
          const expiresAt = nonces.get(nonce);
          if (expiresAt !== undefined && expiresAt < now) {
            nonces.delete(nonce);
            size--;
          }
        }
        bySecond.delete(second);
        budget -= filed.length / 2;
      }
      for (const [keyId, shards] of byKey) if (shards.every((nonces) => nonces.size === 0)) byKey.delete(keyId);
      return true;
    },
  };
}
