// The data directory holds the SQLite database, the master key and the operator token, each
// readable by the server's user only (0600): the directory the server creates for them is that
// user's only too (0700), so no one else can even list what it holds. A directory that already
// exists is the operator's choice and is left as it is.
import { mkdirSync } from 'node:fs';

export function makeDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}
