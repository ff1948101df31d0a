// Folders for a test file's databases and files, removed once the file's tests are done. Made in
// factories and single tests alike, they were never removed: dozens of folders (the plans
// test's 36 MB among them) were left in /tmp by every `npm test`.
//
// The hook is registered when this module is first imported by a test file, during collection,
// on that file's root suite; vitest isolates each file (its own module graph), so each file gets
// its own hook and list.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty folder in the system's temporary directory, `prefix` then random characters. */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
