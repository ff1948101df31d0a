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
  /** Whether the pair was used and its retention has not passed at `now`. */
  used(pair: string, now: number): boolean;
  /** Forgets pairs whose retention has passed; keeps memory bounded like the log. */
  forget(now: number): void;
  readonly size: number;
}

/** One append to the log (`appending`). */
export type Append = number;

export const pairKey = (keyId: string, nonce: string) => `${keyId}\n${nonce}`;

export function nonceLedger(): NonceLedger {
  const expiries = new Map<string, number>();
  let after = 0;
  // The epoch the ledger is complete at; undefined: not known to be (read the log).
  let complete: number | undefined;
  let appends = 0;
  const learn = (rows: Iterable<NonceLogRow>) => {
    for (const row of rows) {
      const pair = pairKey(row.key_id, row.nonce);
      const expiresAt = Number(row.expires_at);
      // A pair reused after its retention is logged again, later and with a later expiry.
      if ((expiries.get(pair) ?? -Infinity) < expiresAt) expiries.set(pair, expiresAt);
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
      return expiries.size;
    },
    learn,
    used(pair, now) {
      const expiresAt = expiries.get(pair);
      return expiresAt !== undefined && expiresAt >= now;
    },
    forget(now) {
      for (const [pair, expiresAt] of expiries) if (expiresAt < now) expiries.delete(pair);
    },
  };
}
