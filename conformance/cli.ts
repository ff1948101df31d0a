#!/usr/bin/env node
// npm run conformance -- [--base-url URL] [options]
// npm run conformance -- receiver --url URL --secret S   (checks a partner's webhook endpoint)
// Exit codes: 0 every check passed (or was skipped), 1 a check failed, 2 configuration error.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Credentials } from './http.ts';
import { HttpRecorder } from './http.ts';
import type { AdminClient, Context, Need } from './context.ts';
import { ALL_FAMILIES } from './families/index.ts';
import { consoleSummary, jsonReport, junitReport } from './report.ts';
import { runFamilies, selectFamilies, type CheckResult } from './runner.ts';
import { SpecIndex } from './spec.ts';

const USAGE = `Usage: npm run conformance -- [--base-url URL] [options]

Checks a deployment of the Domain Sales APIs against the contract. Without --base-url it starts
the reference server in-process on a temporary database and checks that.

  --base-url URL           the deployment (e.g. https://api.example.com)
  --key-id ID --secret S   partner credential (default: SERVICE_KEY_ID / SERVICE_SECRET)
  --admin-token T          operator token: the suite mints its own credentials (default: ADMIN_TOKEN)
  --surface S              partner | public | all (default all)
  --only a,b  --skip a,b   families to run or leave out (--list shows them)
  --seed N --num-runs N    fast-check seed and runs per property (default: random seed, 25 runs)
  --report junit=F,json=F  write reports
  --allow-live             accept pk_live_ credentials (then only checks that create nothing run)
  --webhook-listen H:P     address for the suite's webhook receiver (default 127.0.0.1:0)
  --webhook-public-url U   the URL the deployment should deliver to (remote deployments)
  --oauth-user E --oauth-password P   sandbox sign-in user for the OAuth family
  --list                   list the families and exit

  npm run conformance -- receiver --url URL --secret S
                           check a partner's webhook endpoint instead (see conformance/receiver.ts)
`;

class ConfigError extends Error {}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      'base-url': { type: 'string' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
      'admin-token': { type: 'string' },
      surface: { type: 'string', default: 'all' },
      only: { type: 'string' },
      skip: { type: 'string' },
      seed: { type: 'string' },
      'num-runs': { type: 'string', default: '25' },
      report: { type: 'string' },
      'allow-live': { type: 'boolean', default: false },
      'webhook-listen': { type: 'string' },
      'webhook-public-url': { type: 'string' },
      'oauth-user': { type: 'string' },
      'oauth-password': { type: 'string' },
      list: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const surface = values.surface;
  if (surface !== 'partner' && surface !== 'public' && surface !== 'all') throw new ConfigError(`--surface must be partner, public or all, not "${surface}"`);
  const int = (v: string | undefined, name: string) => {
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new ConfigError(`${name} must be an integer, not "${v}"`);
    return Number(v);
  };
  const names = new Set(ALL_FAMILIES.map((f) => f.name));
  const list = (v: string | undefined, flag: string) => {
    const items = v ? v.split(',').map((s) => s.trim()).filter(Boolean) : [];
    for (const item of items) if (!names.has(item)) throw new ConfigError(`${flag}: unknown family "${item}" (known: ${[...names].join(', ')})`);
    return items;
  };
  const reports: { junit?: string; json?: string } = {};
  for (const part of (values.report ?? '').split(',').filter(Boolean)) {
    const [kind, file] = part.split('=');
    if ((kind !== 'junit' && kind !== 'json') || !file) throw new ConfigError(`--report takes junit=FILE and/or json=FILE, not "${part}"`);
    reports[kind] = file;
  }
  const keyId = values['key-id'] ?? process.env.SERVICE_KEY_ID;
  const secret = values.secret ?? process.env.SERVICE_SECRET;
  if ((keyId === undefined) !== (secret === undefined)) throw new ConfigError('give both a key id and a secret, or neither');
  if (keyId?.startsWith('pk_live_') && !values['allow-live']) throw new ConfigError('refusing a pk_live_ credential without --allow-live');
  return {
    baseUrl: values['base-url']?.replace(/\/+$/, ''),
    credentials: keyId && secret ? { keyId, secret } : undefined,
    adminToken: values['admin-token'] ?? process.env.ADMIN_TOKEN,
    surface: surface as 'partner' | 'public' | 'all',
    only: list(values.only, '--only'),
    skip: list(values.skip, '--skip'),
    seed: int(values.seed, '--seed') ?? randomBytes(4).readInt32LE(0),
    numRuns: int(values['num-runs'], '--num-runs') ?? 25,
    reports,
    live: keyId?.startsWith('pk_live_') ?? false,
    options: {
      webhookListen: values['webhook-listen'],
      webhookPublicUrl: values['webhook-public-url'],
      oauthUser: values['oauth-user'],
      oauthPassword: values['oauth-password'],
    },
    listOnly: values.list,
    help: values.help,
  };
}

function adminClient(baseUrl: string, token: string): AdminClient {
  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}/api/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body: parsed };
  };
  return {
    post,
    async mint(body) {
      const res = await post('/credentials', { environment: 'sandbox', ...body });
      const created = res.body as { key_id?: string; secret?: string; partner_id?: string };
      if (res.status !== 201 || !created.key_id || !created.secret || !created.partner_id) {
        throw new ConfigError(`minting a credential through the operator API failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      }
      return { keyId: created.key_id, secret: created.secret, partnerId: created.partner_id };
    },
  };
}

/** Every partner scope, with quotas high enough that a local run never waits. */
const ALL_SCOPES = ['search', 'embed', 'buy', 'broker', 'refer', 'report', 'webhook'];
const FAST_LIMITS = { search: 100_000, write: 100_000, reporting: 100_000 };

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'receiver') {
    const { receiverMain } = await import('./receiver.ts');
    return receiverMain(argv.slice(1));
  }
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if (args.listOnly) {
    for (const f of ALL_FAMILIES) console.log(`${f.name.padEnd(18)} ${f.surface.padEnd(8)} ${f.description}`);
    return 0;
  }

  let baseUrl = args.baseUrl;
  let adminToken = args.adminToken;
  let stopServer: (() => Promise<void>) | undefined;
  let tempDir: string | undefined;
  if (!baseUrl) {
    // The one-command demo: the reference server on a temporary database, checked in-process.
    const { startServer } = await import('../server/embedded.ts');
    tempDir = await mkdtemp(join(tmpdir(), 'conformance-'));
    adminToken = randomBytes(16).toString('hex');
    const running = await startServer({
      config: {
        port: 0,
        host: '127.0.0.1',
        dataDir: tempDir,
        databaseUrl: undefined,
        adminToken,
        masterKey: randomBytes(32),
        sandboxInventorySize: 2000,
        validateResponses: true,
        publicBaseUrl: 'http://127.0.0.1',
        webhookBackoffScale: 0.001,
        webhookTimeoutMs: 5000,
      },
      log: () => {},
    });
    baseUrl = running.url;
    stopServer = running.stop;
    console.log(`started the reference server at ${baseUrl} (temporary database)`);
  }

  try {
    const http = new HttpRecorder(baseUrl, globalThis.fetch, (l) => console.log(l));
    const admin = adminToken ? adminClient(baseUrl, adminToken) : undefined;
    let main: (Credentials & { partnerId?: string }) | undefined = args.credentials;
    const ctx: Context = {
      http,
      spec: SpecIndex.load(),
      fc: { seed: args.seed, numRuns: args.numRuns },
      admin,
      async credentials() {
        main ??= admin ? await admin.mint({ scopes: ALL_SCOPES, affiliate: true, rate_limits: FAST_LIMITS }) : undefined;
        if (!main) throw new ConfigError('no partner credential: pass --key-id/--secret (or SERVICE_KEY_ID/SERVICE_SECRET) or --admin-token');
        return main;
      },
      async mint(scopes, extra = {}) {
        if (!admin) throw new ConfigError('minting credentials needs --admin-token');
        return admin.mint({ scopes, rate_limits: FAST_LIMITS, ...extra });
      },
      writesAllowed: !args.live,
      log: (line) => console.log(line),
      options: args.options,
    };
    const available = new Set<Need>();
    if (admin) available.add('admin');
    if (admin || args.credentials) available.add('credentials');
    if (!args.live) available.add('writes');
    if (!args.live) available.add('webhook-receiver');
    if (args.options.oauthUser || !args.baseUrl) available.add('oauth-user');

    const families = selectFamilies(ALL_FAMILIES, args);
    console.log(`conformance: ${families.length} families against ${baseUrl} (seed ${args.seed}, ${args.numRuns} runs per property)`);
    const started = performance.now();
    const tty = process.stdout.isTTY;
    const results: CheckResult[] = await runFamilies(ctx, families, {
      only: args.only,
      skip: args.skip,
      surface: args.surface,
      available,
      onFamily: (f) => console.log(`\n${f.name}: ${f.description}`),
      onResult: (r) => console.log(`  ${r.status === 'passed' ? (tty ? '\u001b[32m✓\u001b[0m' : 'ok  ') : r.status === 'failed' ? (tty ? '\u001b[31m✗\u001b[0m' : 'FAIL') : '-   '} ${r.check}${r.status === 'skipped' ? ` (skipped: ${r.message})` : ''} ${r.ms} ms`),
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(consoleSummary(results, seconds));
    if (args.reports.junit) await writeFile(args.reports.junit, junitReport(results));
    if (args.reports.json) await writeFile(args.reports.json, jsonReport(results, { baseUrl, seed: args.seed, numRuns: args.numRuns, seconds }));
    return results.some((r) => r.status === 'failed') ? 1 : 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  } finally {
    await stopServer?.();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(2);
  },
);
