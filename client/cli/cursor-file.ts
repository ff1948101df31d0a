// Where `listen` remembers its place: the id of the last event it is done with (forwarded and
// accepted, or skipped), with the deployment and key id it belongs to, since an event id of one
// partner is `invalid_cursor` for another. Written to a temporary file and renamed over the old
// one, so a crash mid-write leaves the previous cursor, never half a file.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { UsageError } from './usage.ts';

export interface ListenCursor {
  base_url: string;
  key_id: string;
  /** The last event done with; null before the first. */
  after_id: string | null;
  updated_at: string;
}

export async function loadCursor(
  file: string,
  owner: { baseUrl: string; keyId: string },
): Promise<string | null | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the cursor file ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let cursor: Partial<ListenCursor>;
  try {
    cursor = JSON.parse(text) as Partial<ListenCursor>;
  } catch {
    throw new UsageError(`the cursor file ${file} is not JSON; delete it to start again from the oldest event`);
  }
  if (cursor.base_url !== owner.baseUrl || cursor.key_id !== owner.keyId) {
    throw new UsageError(
      `the cursor file ${file} belongs to ${cursor.key_id} at ${cursor.base_url}, not ${owner.keyId} at ${owner.baseUrl}: give another --cursor-file`,
    );
  }
  if (cursor.after_id !== null && typeof cursor.after_id !== 'string')
    throw new UsageError(`the cursor file ${file} has no after_id; delete it to start again`);
  return cursor.after_id;
}

export async function saveCursor(
  file: string,
  owner: { baseUrl: string; keyId: string },
  afterId: string | null,
): Promise<void> {
  const cursor: ListenCursor = {
    base_url: owner.baseUrl,
    key_id: owner.keyId,
    after_id: afterId,
    updated_at: new Date().toISOString(),
  };
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(cursor, null, 2)}\n`);
  await rename(temporary, file);
}
