// The process surface each command uses, passed in by main.ts (one composition root), so no
// command reaches for `process` itself.
export interface Io {
  /** Writes to stdout (the command's result). */
  out(text: string): void;
  /** Writes to stderr (progress, notes, errors). */
  err(text: string): void;
  env: Record<string, string | undefined>;
  readStdin(): Promise<Buffer>;
  /** Aborted on SIGINT or SIGTERM. */
  signal: AbortSignal;
}
