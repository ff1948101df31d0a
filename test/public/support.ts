// Shared by the public-read tests: a store with a generated sandbox inventory, PublicDeps around
// it, and validators for the public document's schemas (read from generated/, never from server code).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { sql } from 'kysely';
import addFormatsModule from 'ajv-formats';
import { manualClock } from '../../server/clock.ts';
import { NO_FAULTS } from '../../server/faults.ts';
import { generateInventory } from '../../server/inventory/generate.ts';
import type { PublicDeps, Viewer } from '../../server/public-api/context.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';

export const publicDoc = JSON.parse(
  readFileSync(new URL('../../generated/public.openapi.json', import.meta.url), 'utf8'),
) as {
  components: { schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
ajv.addSchema({ $id: 'public', components: publicDoc.components });
const compiled = new Map<string, ValidateFunction>();

/** Throws with Ajv's errors when `value` does not match the component schema `name`. */
export function assertSchema(name: string, value: unknown): void {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: `public#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  if (!validate(value))
    throw new Error(
      `${name} does not match: ${JSON.stringify(validate.errors, null, 1)}\n${JSON.stringify(value).slice(0, 2000)}`,
    );
}

/**
 * A fresh store with a generated sandbox inventory: SQLite in memory, or with `databaseUrl` a
 * PostgreSQL schema of its own, dropped on close.
 */
export async function memoryStore(inventorySize = 400, databaseUrl?: string): Promise<Store> {
  let opened = await openDatabase({ filename: ':memory:' });
  if (databaseUrl) {
    await opened.close();
    const schema = `public_reads_${process.pid}_${randomBytes(4).toString('hex')}`;
    const pg = await openDatabase({ databaseUrl, schema, poolSize: 2 });
    opened = {
      ...pg,
      async close() {
        await sql.raw(`drop schema if exists "${schema}" cascade`).execute(pg.db);
        await pg.close();
      },
    };
  }
  const store = createStore(opened, secretBox(randomBytes(32)));
  if (inventorySize > 0)
    await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: inventorySize, seed: 7 }));
  return store;
}

export function depsFor(store: Store, log: PublicDeps['log'] = () => {}): PublicDeps {
  return {
    store,
    clock: manualClock(Date.parse('2026-11-22T10:00:00Z')),
    faults: NO_FAULTS,
    keys: { cursors: randomBytes(32), oauth: randomBytes(32) },
    baseUrl: () => 'http://127.0.0.1:0',
    log,
  };
}

export function viewer(scopes: string[]): Viewer {
  return { userId: 'usr_1', clientId: 'cli_1', grantId: 'gr_1', scopes, resource: 'http://127.0.0.1:0' };
}
