// Configuration from the environment, read once at start. Everything the server needs to know
// about its surroundings is here, so createApp() itself reads no environment variables.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { makeDataDir } from './store/data-dir.ts';
import { join } from 'node:path';
import { DELIVERY_TIMEOUT_SECONDS } from './domain/webhook-schedule.ts';
import { sandboxLoopbackByDefault } from './domain/webhook-url.ts';
import { publicBaseUrlOf } from './http/trusted-host.ts';
import { checkDeploymentSecrets, DEFAULT_SANDBOX_PASSWORD } from './ops/deployment-secrets.ts';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL URL; absent means embedded SQLite in dataDir. */
  databaseUrl: string | undefined;
  /** Bearer token of the operator API; absent turns the operator API off (404). */
  adminToken: string | undefined;
  /** 32-byte key: encrypts credential and webhook secrets at rest, signs quotes and cursors. */
  masterKey: Buffer;
  /** Size of the generated sandbox inventory. */
  sandboxInventorySize: number;
  /** Validate responses against the spec (on by default; production may switch it off). */
  validateResponses: boolean;
  /**
   * The base address partners, buyers and OAuth clients see (URLs the service hands out, the
   * OAuth issuer). Absent: each request's own origin, which is right for a server reached directly.
   */
  publicBaseUrl: string | undefined;
  /** Scales the webhook retry schedule (1 = the documented schedule; tests use ~0.001). */
  webhookBackoffScale: number;
  /**
   * Whether sandbox webhooks may reach loopback (SANDBOX_WEBHOOK_LOOPBACK `allow` or `refuse`;
   * default: allowed only on a server listening on loopback and not published over https).
   */
  sandboxWebhookLoopback: boolean;
  /** Per-attempt webhook timeout, ms (x-webhook-delivery `timeout-seconds`, DELIVERY_TIMEOUT_SECONDS, by default). */
  webhookTimeoutMs: number;
  /** The seeded sign-in user of the OAuth pages (created or updated at start); absent: DEFAULT_SANDBOX_USER. */
  sandboxUser?: { email: string; password: string };
  /**
   * WHOIS for names outside the inventory through the real RDAP client (IANA bootstrap shipped
   * in server/rdap/); off by default: the sandbox answers from its own data and needs no network.
   */
  rdapLookup?: boolean;
  /** Browser origins allowed at /mcp besides the deployment's own and loopback (MCP_ALLOWED_ORIGINS, comma-separated). */
  mcpAllowedOrigins?: string[];
  /** SQLite durability (SQLITE_SYNCHRONOUS): `full` (default) survives power loss (nonces and rate-limit counts: within 100 ms, direct.ts), `normal` only process crashes. */
  sqliteSynchronous?: 'full' | 'normal';
  /** GET /metrics on a listener of its own (METRICS_PORT; 0 = any free port); absent: no metrics listener. */
  metricsPort?: number;
  /** Address of the metrics listener (METRICS_HOST, default 127.0.0.1: the operator's own network only). */
  metricsHost?: string;
  /** On SIGTERM, how long requests are still served after /readyz turns 503 (DRAIN_GRACE_MS, default 5000). */
  drainGraceMs?: number;
  /**
   * Weak secrets of a deployment that is not published over https (server/ops/deployment-secrets.ts),
   * for a warning at start; on an https one they refuse the start instead.
   */
  weakSecrets?: string[];
}

/** The documented sandbox sign-in user (README), used when SANDBOX_USER_EMAIL / _PASSWORD are unset. */
export const DEFAULT_SANDBOX_USER = { email: 'sandbox@example.com', password: DEFAULT_SANDBOX_PASSWORD } as const;

const bool = (v: string | undefined, fallback: boolean) =>
  v === undefined ? fallback : !/^(0|false|no|off)$/i.test(v);
const int = (v: string | undefined, fallback: number, name: string) => {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
};

/**
 * The master key comes from MASTER_KEY (64 hex characters). Without it, a key is generated once
 * and kept in DATA_DIR/master.key, which is right for one embedded instance; several instances
 * sharing PostgreSQL must all be given the same MASTER_KEY.
 */
function loadMasterKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  if (env.MASTER_KEY) {
    if (!/^[0-9a-fA-F]{64}$/.test(env.MASTER_KEY))
      throw new Error('MASTER_KEY must be 64 hexadecimal characters (32 bytes)');
    return Buffer.from(env.MASTER_KEY, 'hex');
  }
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  makeDataDir(dataDir);
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex'), { mode: 0o600 });
  return key;
}

function sandboxWebhookLoopback(value: string | undefined, host: string, publicBaseUrl: string | undefined): boolean {
  if (value === undefined || value === '') return sandboxLoopbackByDefault({ host, publicBaseUrl });
  if (/^allow$/i.test(value)) return true;
  if (/^refuse$/i.test(value)) return false;
  throw new Error(`SANDBOX_WEBHOOK_LOOPBACK must be allow or refuse, got "${value}"`);
}

function sqliteSynchronous(value: string | undefined): 'full' | 'normal' {
  if (value === undefined || value === '' || /^full$/i.test(value)) return 'full';
  if (/^normal$/i.test(value)) return 'normal';
  throw new Error(`SQLITE_SYNCHRONOUS must be full or normal, got "${value}"`);
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = env.DATA_DIR ?? './data';
  const port = int(env.PORT, 8080, 'PORT');
  const host = env.HOST ?? '127.0.0.1';
  const publicBaseUrl = publicBaseUrlOf(env.PUBLIC_BASE_URL);
  const adminToken = env.ADMIN_TOKEN || undefined;
  const sandboxUser = {
    email: env.SANDBOX_USER_EMAIL || DEFAULT_SANDBOX_USER.email,
    password: env.SANDBOX_USER_PASSWORD || DEFAULT_SANDBOX_USER.password,
  };
  // Before anything is written (the master key file): a refused start leaves nothing behind.
  const weakSecrets = checkDeploymentSecrets({ publicBaseUrl, adminToken, sandboxUserPassword: sandboxUser.password });
  return {
    port,
    host,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    adminToken,
    masterKey: loadMasterKey(env, dataDir),
    sandboxInventorySize: int(env.SANDBOX_INVENTORY_SIZE, 10_000, 'SANDBOX_INVENTORY_SIZE'),
    validateResponses: bool(env.VALIDATE_RESPONSES, true),
    publicBaseUrl,
    sandboxWebhookLoopback: sandboxWebhookLoopback(env.SANDBOX_WEBHOOK_LOOPBACK, host, publicBaseUrl),
    webhookBackoffScale: Number(env.WEBHOOK_BACKOFF_SCALE ?? '1'),
    webhookTimeoutMs: int(env.WEBHOOK_TIMEOUT_MS, DELIVERY_TIMEOUT_SECONDS * 1000, 'WEBHOOK_TIMEOUT_MS'),
    rdapLookup: bool(env.RDAP_LOOKUP, false),
    sqliteSynchronous: sqliteSynchronous(env.SQLITE_SYNCHRONOUS),
    ...(env.METRICS_PORT !== undefined && env.METRICS_PORT !== ''
      ? { metricsPort: int(env.METRICS_PORT, 0, 'METRICS_PORT') }
      : {}),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    drainGraceMs: int(env.DRAIN_GRACE_MS, 5000, 'DRAIN_GRACE_MS'),
    mcpAllowedOrigins: (env.MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    sandboxUser,
    ...(weakSecrets.length > 0 ? { weakSecrets } : {}),
  };
}
