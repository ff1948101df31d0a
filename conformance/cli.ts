#!/usr/bin/env node
// npm run conformance -- [--base-url URL] [options]
// npm run conformance -- receiver --url URL --secret S   (checks a partner's webhook endpoint)
// Exit codes: 0 every check passed (or was skipped), 1 a check failed, 2 configuration error,
// 130 interrupted (Ctrl-C or SIGTERM: what the run changed is undone first).
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { applyBaseline, parseBaseline, runFails, writeBaseline, type BaselineEntry } from './baseline.ts';
import { writeBundle } from './bundle/write.ts';
import { ConfigError } from './context.ts';
import { coverageSummary } from './coverage.ts';
import { ALL_FAMILIES } from './families/index.ts';
import { MOCK_FAMILIES } from './families/mock.ts';
import { htmlReport } from './html-report.ts';
import { consoleSummary, jsonReport, junitReport, rerunCommand } from './report.ts';
import { invocation } from './invocation.ts';
import { listing } from './requirements.ts';
import { RunInterrupted, runConformance, startReferenceServer } from './run.ts';
import { selects } from './runner.ts';
import { watchLauncher, type LauncherWatch } from '../server/ops/launcher.ts';

/** How often the launcher is looked at: how long a run outlives its npx at most before it stops. */
const LAUNCHER_CHECK_MS = 500;

const USAGE = `Usage: domain-sales-conformance [--base-url URL] [options]
       (npx @domain-sales/conformance …; in this repository: npm run conformance -- …)

Checks a deployment of the Domain Sales APIs against the contract. Without --base-url it starts
the reference server in-process on a temporary database and checks that (installed, this needs
the @domain-sales/sandbox package beside the kit).

  --base-url URL           the deployment (e.g. https://api.example.com)
  --key-id ID --secret S   partner credential (default: SERVICE_KEY_ID / SERVICE_SECRET)
  --admin-token T          operator token: the suite mints its own credentials (default: ADMIN_TOKEN)
  --surface S              partner | public | all (default all)
  --only a,b  --skip a,b   families, requirement IDs or ID prefixes to run or leave out
                           (e.g. --only pagination,partner.auth.skew; --list shows them)
  --seed N --num-runs N    fast-check seed and runs per property (default: random seed, 25 runs)
  --report junit=F,json=F,html=F,bundle=DIR
                           write reports: JUnit XML, JSON (also a valid --baseline), one
                           self-contained HTML page, and a replayable bundle of each failure
                           (HAR 1.2 and DIR/replay.mjs, see DIR/README.txt)
  --baseline FILE          known failures (a JSON report, or one requirement ID and reason per
                           line): they do not fail the run; a new failure does, and so does a
                           listed check that passes now (stale: delete its line)
  --write-baseline FILE    write the run's failures as a baseline
  --allow-live             accept pk_live_ credentials (then only checks that create nothing run)
  --webhook-listen H:P     address for the suite's webhook receiver (default 127.0.0.1:0)
  --webhook-public-url U   the URL the deployment should deliver to (remote deployments)
  --oauth-user E --oauth-password P   sandbox sign-in user for the OAuth, MCP and public families
                           (default: SANDBOX_USER_EMAIL / SANDBOX_USER_PASSWORD; else, with
                           sandbox credentials, the documented sandbox@example.com, said so)
  --provoke-rate-limit     exhaust a public rate-limit window on purpose to check the 429
                           (implied when the suite acts as many clients: a deployment on 127.0.0.0/8)
  --target T               deployment (default) | mock: check a Prism mock of one document
                           (npm run mock): --surface partner with the partner mock (port 4010),
                           --surface public with the public one (4011); no protocol checks
  --list                   list the requirements (ID, title, rules) by family, and the retired IDs

  domain-sales-conformance receiver --url URL --secret S
                           check a partner's webhook endpoint instead (see conformance/receiver.ts)
`;

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
      baseline: { type: 'string' },
      'write-baseline': { type: 'string' },
      'allow-live': { type: 'boolean', default: false },
      'webhook-listen': { type: 'string' },
      'webhook-public-url': { type: 'string' },
      'oauth-user': { type: 'string' },
      'oauth-password': { type: 'string' },
      'provoke-rate-limit': { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      target: { type: 'string', default: 'deployment' },
      help: { type: 'boolean', default: false },
    },
  });
  const surface = values.surface;
  if (surface !== 'partner' && surface !== 'public' && surface !== 'all')
    throw new ConfigError(`--surface must be partner, public or all, not "${surface}"`);
  const int = (v: string | undefined, name: string) => {
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new ConfigError(`${name} must be an integer, not "${v}"`);
    return Number(v);
  };
  const target = values.target;
  if (target !== 'deployment' && target !== 'mock')
    throw new ConfigError(`--target must be deployment or mock, not "${target}"`);
  if (target === 'mock' && (!values['base-url'] || surface === 'all'))
    throw new ConfigError('--target mock checks one Prism mock: give its --base-url and --surface partner or public');
  const families = [...ALL_FAMILIES, ...MOCK_FAMILIES];
  const list = (v: string | undefined, flag: string) => {
    const items = v
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    for (const item of items) {
      if (!families.some((f) => f.checks.some((c) => selects(item, f, c))))
        throw new ConfigError(
          `${flag}: "${item}" names no family, requirement ID or ID prefix (${invocation()} --list)`,
        );
    }
    return items;
  };
  const reports: { junit?: string; json?: string; html?: string; bundle?: string } = {};
  for (const part of (values.report ?? '').split(',').filter(Boolean)) {
    const [kind, file] = part.split('=');
    if ((kind !== 'junit' && kind !== 'json' && kind !== 'html' && kind !== 'bundle') || !file)
      throw new ConfigError(`--report takes junit=FILE, json=FILE, html=FILE and bundle=DIR, not "${part}"`);
    reports[kind] = file;
  }
  const keyId = values['key-id'] ?? process.env.SERVICE_KEY_ID;
  const secret = values.secret ?? process.env.SERVICE_SECRET;
  if ((keyId === undefined) !== (secret === undefined))
    throw new ConfigError('give both a key id and a secret, or neither');
  if (keyId?.startsWith('pk_live_') && !values['allow-live'])
    throw new ConfigError('refusing a pk_live_ credential without --allow-live');
  const oauthUser = values['oauth-user'] ?? process.env.SANDBOX_USER_EMAIL;
  const oauthPassword = values['oauth-password'] ?? process.env.SANDBOX_USER_PASSWORD;
  if (Boolean(oauthUser) !== Boolean(oauthPassword))
    throw new ConfigError(
      'give both an OAuth user and its password (--oauth-user/--oauth-password or SANDBOX_USER_EMAIL/SANDBOX_USER_PASSWORD), or neither',
    );
  return {
    baseUrl: values['base-url']?.replace(/\/+$/, ''),
    credentials: keyId && secret ? { keyId, secret } : undefined,
    adminToken: values['admin-token'] ?? process.env.ADMIN_TOKEN,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc widens it back to string here
    surface: surface as 'partner' | 'public' | 'all',
    only: list(values.only, '--only'),
    skip: list(values.skip, '--skip'),
    seed: int(values.seed, '--seed') ?? randomBytes(4).readInt32LE(0),
    numRuns: int(values['num-runs'], '--num-runs') ?? 25,
    reports,
    baseline: values.baseline,
    writeBaseline: values['write-baseline'],
    live: keyId?.startsWith('pk_live_') ?? false,
    options: {
      webhookListen: values['webhook-listen'],
      webhookPublicUrl: values['webhook-public-url'],
      oauthUser: values['oauth-user'] ?? (process.env.SANDBOX_USER_EMAIL || undefined),
      oauthPassword: values['oauth-password'] ?? (process.env.SANDBOX_USER_PASSWORD || undefined),
    },
    provokeRateLimit: values['provoke-rate-limit'],
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc widens it back to string here
    target: target as 'deployment' | 'mock',
    listOnly: values.list,
    help: values.help,
  };
}

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
    console.log(listing([...ALL_FAMILIES, ...MOCK_FAMILIES]));
    return 0;
  }
  let baseline: BaselineEntry[] = [];
  if (args.baseline) {
    let text: string;
    try {
      text = await readFile(args.baseline, 'utf8');
    } catch (err) {
      console.error(`--baseline ${args.baseline}: ${err instanceof Error ? err.message : String(err)}`);
      return 2;
    }
    try {
      baseline = parseBaseline(
        text,
        args.baseline,
        new Set([...ALL_FAMILIES, ...MOCK_FAMILIES].flatMap((f) => f.checks.map((c) => c.id))),
      );
    } catch (err) {
      if (err instanceof ConfigError) {
        console.error(err.message);
        return 2;
      }
      throw err;
    }
  }

  let baseUrl = args.baseUrl;
  let adminToken = args.adminToken;
  let reference: Awaited<ReturnType<typeof startReferenceServer>> | undefined;
  let launcher: LauncherWatch | undefined;
  if (!baseUrl) {
    reference = await startReferenceServer();
    baseUrl = reference.url;
    adminToken = reference.adminToken;
    console.log(`started the reference server at ${baseUrl} (temporary database)`);
  }
  try {
    const tty = process.stdout.isTTY;
    const mark = (status: string) =>
      status === 'passed'
        ? tty
          ? '\u001b[32m✓\u001b[0m'
          : 'ok  '
        : status === 'failed'
          ? tty
            ? '\u001b[31m✗\u001b[0m'
            : 'FAIL'
          : '-   ';
    const known = new Set(baseline.map((b) => b.id));
    console.log(
      `conformance: against ${baseUrl} (seed ${args.seed}, ${args.numRuns} runs per property${baseline.length ? `, baseline of ${baseline.length} known failures` : ''})`,
    );
    // Ctrl-C (or SIGTERM): undo what the run changed on the deployment, then exit 130; a second one quits at once.
    const interrupt = new AbortController();
    const onSignal = () => {
      console.error('\ninterrupted: undoing what the run changed on the deployment (again to quit at once)');
      interrupt.abort();
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(130));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    // npx runs the bin through `sh -c`, which does not pass a SIGTERM on: a cancelled CI job
    // signals npx, the shell dies, and the run would go on against the deployment, never undone.
    // Its launcher gone, the run stops as on the first signal.
    launcher = watchLauncher(() => {
      if (interrupt.signal.aborted) return;
      console.error('\nthe process that started the kit (npx, npm) is gone');
      onSignal();
    }, LAUNCHER_CHECK_MS);
    const run = await runConformance({
      signal: interrupt.signal,
      baseUrl,
      credentials: args.credentials,
      adminToken,
      surface: args.surface,
      only: args.only,
      skip: args.skip,
      seed: args.seed,
      numRuns: args.numRuns,
      live: args.live,
      reference: reference !== undefined,
      target: args.target,
      options: args.options,
      provokeRateLimit: args.provokeRateLimit || reference !== undefined,
      log: (line) => console.log(line),
      onFamily: (f) => console.log(`${f.name}: ${f.description}`),
      onResult: (r) =>
        console.log(
          `  ${mark(r.status)} ${r.id} [${r.family}] ${r.check}${r.status === 'failed' && known.has(r.id) ? ' (known failure)' : ''}${r.status === 'skipped' ? ` (skipped: ${r.message})` : ''} ${r.ms} ms`,
        ),
    });
    const { results, retired } = applyBaseline(run.results, baseline);
    const seconds = run.seconds;
    const meta = { baseUrl, seed: args.seed, numRuns: args.numRuns, seconds, rerun: invocation() };
    console.log(
      consoleSummary(results, seconds, {
        retired,
        waits: run.http.waits,
        spent: run.http.spent(),
        rerun: (r) => rerunCommand(meta.rerun, meta, r),
      }),
    );
    console.log(coverageSummary(run.coverage));
    if (args.reports.junit) await writeFile(args.reports.junit, junitReport(results, run.coverage));
    if (args.reports.json) await writeFile(args.reports.json, jsonReport(results, { ...meta, coverage: run.coverage }));
    if (args.reports.bundle) {
      const bundled = await writeBundle(args.reports.bundle, results, run.http, meta);
      if (bundled.length > 0)
        console.log(
          `\nfailure bundle: ${args.reports.bundle} (${bundled.length} checks; node ${args.reports.bundle}/replay.mjs --base-url URL)`,
        );
    }
    if (args.reports.html)
      await writeFile(
        args.reports.html,
        htmlReport(results, {
          ...meta,
          date: new Date().toISOString(),
          coverage: run.coverage,
          ...(args.reports.bundle ? { bundleDir: args.reports.bundle } : {}),
        }),
      );
    if (args.writeBaseline)
      await writeFile(
        args.writeBaseline,
        writeBaseline(results, { baseUrl, date: new Date().toISOString().slice(0, 10) }),
      );
    return runFails(results, retired) ? 1 : 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    if (err instanceof RunInterrupted) {
      console.error('interrupted: what the run changed was undone; no report written');
      return 130;
    }
    throw err;
  } finally {
    launcher?.stop();
    await reference?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(2);
  },
);
