// The words a person starting the server reads first: where its data lives, where it listens,
// the operator token and the call that mints a partner credential. One text for both entry
// points, the installed sandbox (server/sandbox.ts, always) and `npm start` (server/main.ts, on a
// terminal). Written through `say`, after the logger's buffered lines, so the banner and the log
// lines reach the console in the order they happened.
import { DEFAULT_SANDBOX_USER, type Config } from '../config.ts';
import { flushLogger, type Logger } from './logger.ts';

/** Where the operator token came from: the environment, generated now (shown once), a file in the data directory, or none. */
export type OperatorToken =
  | { source: 'env'; token: string }
  | { source: 'generated'; token: string; file: string }
  | { source: 'file'; token: string; file: string }
  | { source: 'none' };

/** The store line: printed before the store opens (server/sandbox.ts), or in the banner. */
export function storeLine(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  return config.databaseUrl
    ? `database: PostgreSQL (DATABASE_URL); keys in ${config.dataDir}`
    : `data: ${config.dataDir} (embedded SQLite)`;
}

export function mintCommand(url: string, token: string): string {
  return [
    `curl -s -X POST ${url}/api/admin/v1/credentials \\`,
    `    -H 'authorization: Bearer ${token}' -H 'content-type: application/json' \\`,
    `    -d '{"environment":"sandbox","scopes":["search","buy","webhook"]}'`,
  ].join('\n');
}

export interface BannerFacts {
  /** What the server is called in the first line. */
  title: string;
  url: string;
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'sandboxUser'>;
  operator: OperatorToken;
  /** Include the store line (the sandbox printed it before starting). */
  withStore?: boolean;
}

export function bannerText(facts: BannerFacts): string {
  const { url, config, operator } = facts;
  const user = config.sandboxUser ?? DEFAULT_SANDBOX_USER;
  const lines = [
    `${facts.title} listening on ${url}`,
    ...(facts.withStore ? [`  ${storeLine(config)}`] : []),
    `  developer docs:  ${url}/docs`,
  ];
  switch (operator.source) {
    case 'generated':
      lines.push(`  operator token:  ${operator.token}  (generated now and shown once; kept in ${operator.file})`);
      break;
    case 'file':
      lines.push(`  operator token:  kept in ${operator.file} (shown when it was generated; ADMIN_TOKEN overrides it)`);
      break;
    case 'env':
      lines.push('  operator token:  from ADMIN_TOKEN');
      break;
    case 'none':
      lines.push('  operator API:    off (set ADMIN_TOKEN to mint partner credentials)');
  }
  lines.push(`  OAuth sign-in user (the public API's sign-in page): ${user.email} / ${user.password}`);
  if (operator.source !== 'none') {
    const shown =
      operator.source === 'generated'
        ? operator.token
        : operator.source === 'file'
          ? `$(cat ${operator.file})`
          : '$ADMIN_TOKEN';
    lines.push('  mint a sandbox partner credential:', `  ${mintCommand(url, shown)}`);
  }
  return lines.join('\n');
}

/**
 * Writes `text` on stdout after everything the logger has buffered (its lines wait up to a
 * second: logger.ts), synchronously, so the console shows the two in the order they happened.
 */
export function say(logger: Logger | undefined, text: string): void {
  if (logger) flushLogger(logger);
  process.stdout.write(`${text}\n`);
}
