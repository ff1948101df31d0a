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
  /** Whether the pair was used and its retention has not passed at `now`. */
  used(pair: string, now: number): boolean;
  /** Forgets pairs whose retention has passed; keeps memory bounded like the log. */
  forget(now: number): void;
  readonly size: number;
}

export const pairKey = (keyId: string, nonce: string) => `${keyId}\n${nonce}`;

export function nonceLedger(): NonceLedger {
  const expiries = new Map<string, number>();
  let after = 0;
  return {
    get after() {
      return after;
    },
    get size() {
      return expiries.size;
    },
    learn(rows) {
      for (const row of rows) {
        const pair = pairKey(row.key_id, row.nonce);
        const expiresAt = Number(row.expires_at);
        // A pair reused after its retention is logged again, later and with a later expiry.
        if ((expiries.get(pair) ?? -Infinity) < expiresAt) expiries.set(pair, expiresAt);
        after = Math.max(after, Number(row.seq));
      }
    },
    used(pair, now) {
      const expiresAt = expiries.get(pair);
      return expiresAt !== undefined && expiresAt >= now;
    },
    forget(now) {
      for (const [pair, expiresAt] of expiries) if (expiresAt < now) expiries.delete(pair);
    },
  };
}
