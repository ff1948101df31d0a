// npm run inventory -- import --environment <live|sandbox> [--format csv|json] FILE
// npm run inventory -- generate [--size N] [--seed N]
// npm run inventory -- count --environment <live|sandbox>
// Works on the server's own database: DATABASE_URL when set, else SQLite in DATA_DIR (./data).
// Exit status: 0 done, 1 bad input (nothing written), 2 usage error.
import { parseArgs } from 'node:util';
import { DEFAULT_INVENTORY_SEED, DEFAULT_INVENTORY_SIZE, generateInventory } from '../server/inventory/generate.ts';
import { importInventoryFile } from '../server/inventory/import.ts';
import { openDatabase, type OpenedDatabase } from '../server/store/database.ts';
import { inventoryRepository } from '../server/store/inventory.ts';
import type { Environment } from '../server/store/schema.ts';

const USAGE = `Usage:
  npm run inventory -- import --environment <live|sandbox> [--format csv|json] FILE
      Replaces the environment's inventory with FILE: CSV with the header domain,price_cents,floor_cents
      (any order) or a JSON array of {domain, price_cents, floor_cents}. Every row is checked first;
      any bad row refuses the whole file and nothing is written.
  npm run inventory -- generate [--size N] [--seed N]
      Replaces the sandbox inventory with a generated one (default ${DEFAULT_INVENTORY_SIZE} rows, seed ${DEFAULT_INVENTORY_SEED}).
  npm run inventory -- count --environment <live|sandbox>

Database: DATABASE_URL when set, else SQLite at DATA_DIR (default ./data)/service.sqlite.
Exit status: 0 done, 1 bad input, 2 usage error.`;

class UsageError extends Error {}

function environmentOf(value: string | undefined): Environment {
  if (value === undefined) throw new UsageError('--environment is required (live or sandbox)');
  if (value !== 'live' && value !== 'sandbox')
    throw new UsageError(`--environment must be live or sandbox, not "${value}"`);
  return value;
}

function integerOf(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${name} must be a non-negative integer, not "${value}"`);
  return Number(value);
}

async function withDatabase<T>(work: (opened: OpenedDatabase) => Promise<T>): Promise<T> {
  const opened = await openDatabase({
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: process.env.DATA_DIR || './data',
  });
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      environment: { type: 'string' },
      format: { type: 'string' },
      size: { type: 'string' },
      seed: { type: 'string' },
    },
  });

  switch (command) {
    case 'import': {
      const environment = environmentOf(values.environment);
      if (values.size !== undefined || values.seed !== undefined)
        throw new UsageError('--size and --seed belong to generate');
      if (positionals.length !== 1)
        throw new UsageError(
          positionals.length === 0 ? 'import needs a FILE' : `import takes one FILE, got ${positionals.length}`,
        );
      const file = positionals[0] ?? '';
      const format = values.format;
      if (format !== undefined && format !== 'csv' && format !== 'json')
        throw new UsageError(`--format must be csv or json, not "${format}"`);
      const outcome = await withDatabase(({ db }) =>
        importInventoryFile(db, environment, file, format ? { format } : {}),
      );
      if (!outcome.ok) {
        for (const p of outcome.problems) console.error(`${file}:${p.line}: ${p.message}`);
        const lines = new Set(outcome.problems.map((p) => p.line)).size;
        console.error(
          `Refused: ${outcome.problems.length} problem(s) on ${lines} line(s). Nothing was imported; the ${environment} inventory is unchanged.`,
        );
        return 1;
      }
      const sold = outcome.keptSold > 0 ? ` (${outcome.keptSold} already sold, kept sold)` : '';
      console.log(
        `Imported ${outcome.imported} domain(s) into the ${environment} inventory from ${file} (${outcome.format})${sold}.`,
      );
      return 0;
    }
    case 'generate': {
      if (values.environment !== undefined && values.environment !== 'sandbox')
        throw new UsageError('generate only writes the sandbox inventory; live inventory is imported');
      if (values.format !== undefined || positionals.length > 0)
        throw new UsageError('generate takes only --size and --seed');
      const size = integerOf(values.size, '--size', DEFAULT_INVENTORY_SIZE);
      const seed = integerOf(values.seed, '--seed', DEFAULT_INVENTORY_SEED);
      const started = performance.now();
      const { written } = await withDatabase(({ db }) =>
        inventoryRepository(db).replaceEnvironment('sandbox', generateInventory({ size, seed })),
      );
      console.log(
        `Generated ${written} sandbox domain(s) (seed ${seed}) in ${Math.round(performance.now() - started)} ms.`,
      );
      return 0;
    }
    case 'count': {
      const environment = environmentOf(values.environment);
      if (
        positionals.length > 0 ||
        values.format !== undefined ||
        values.size !== undefined ||
        values.seed !== undefined
      )
        throw new UsageError('count takes only --environment');
      const n = await withDatabase(({ db }) => inventoryRepository(db).count(environment));
      console.log(`${n}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function isUsageProblem(error: unknown): boolean {
  // parseArgs reports unknown or malformed options with these codes.
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof UsageError ||
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ||
    code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
  );
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (isUsageProblem(error)) {
    console.error(`${message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    const code = (error as { code?: unknown } | null)?.code;
    console.error(
      code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES'
        ? `Cannot read the file: ${message}`
        : `Failed: ${message}`,
    );
    process.exitCode = 1;
  }
}
