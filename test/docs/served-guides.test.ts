// The served guides work for someone who has only the packages (issue 35): no import of the
// repository's files (`./client/…`), no path into the repository's spec/ (`spec/vectors`), no
// snippet naming the default address (`http://127.0.0.1:8080`) when the deployment is elsewhere:
// snippets name the deployment's own address (PUBLIC_BASE_URL, else the address the connection
// arrived at; never the request's Host). The signing vectors are served, byte for byte the
// contract package's file, and the partner CLI has its guide.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { GUIDES } from '../../server/docs/catalog.ts';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';

const VECTORS = readFileSync(new URL('../../spec/vectors/signing.json', import.meta.url), 'utf8');
const PUBLIC = 'https://sandbox.example.test';

interface Deployment {
  server: RunningServer;
  dataDir: string;
  /** What the snippets must name. */
  base: string;
}

const clock = manualClock(Date.now());
const deployments: Deployment[] = [];

async function deploy(env: Record<string, string>, expectedBase: (url: string) => string): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'served-guides-'));
  const server = await startServer({
    config: configFromEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SANDBOX_INVENTORY_SIZE: '50', ...env }),
    clock,
    log: () => {},
  });
  const d = { server, dataDir, base: expectedBase(server.url) };
  deployments.push(d);
  return d;
}

let local: Deployment;
let hosted: Deployment;

beforeAll(async () => {
  local = await deploy({}, (url) => url);
  // An https deployment refuses the default sandbox password (server/ops/deployment-secrets.ts).
  hosted = await deploy(
    { PUBLIC_BASE_URL: `${PUBLIC}/`, SANDBOX_USER_PASSWORD: 'served-guides-secret-password' },
    () => PUBLIC,
  );
}, 90_000);

afterAll(async () => {
  for (const d of deployments) {
    await d.server.stop();
    rmSync(d.dataDir, { recursive: true, force: true });
  }
});

/** GET through node:http, which sends the Host header given (fetch would replace it). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

async function page(d: Deployment, path: string, headers: Record<string, string> = {}) {
  clock.advance(61_000); // one client: a fresh public rate-limit window per request
  const { status, body } = await get(`${d.server.url}${path}`, headers);
  expect(status, path).toBe(200);
  return body;
}

describe('the served guides', () => {
  it.each(['local', 'hosted'] as const)(
    'name the %s deployment in their snippets and nothing of the repository, in both forms',
    async (which) => {
      const d = which === 'local' ? local : hosted;
      expect(d.server.url).not.toContain(':8080');
      // The local deployment is asked under another trusted name: snippets still name its address.
      const headers: Record<string, string> =
        which === 'local' ? { host: `localhost:${new URL(d.server.url).port}` } : {};
      let named = 0;
      for (const guide of GUIDES) {
        for (const path of [`/docs/${guide.slug}`, `/docs/${guide.slug}.md`]) {
          const text = await page(d, path, headers);
          const where = `${path} on ${d.base}`;
          expect(text, where).not.toContain('./client/');
          expect(text, where).not.toContain('spec/vectors');
          expect(text, where).not.toMatch(/\/\/(127\.0\.0\.1|localhost):8080/);
          // Never the request's Host (the local deployment is asked as localhost:<port>).
          expect(text, where).not.toContain(`//localhost:${new URL(d.server.url).port}`);
          if (text.includes(`${d.base}/api/`)) named++;
        }
      }
      // getting-started, oauth, mcp and pagination: each form names the base in its curl commands.
      expect(named).toBeGreaterThanOrEqual(8);
    },
    120_000,
  );

  it('include the partner CLI guide, linked from getting started', async () => {
    const cli = await page(local, '/docs/cli.md');
    expect(cli).toContain('domain-sales request GET');
    expect(cli).toContain('domain-sales listen --forward-to');
    expect(cli).toContain(`SERVICE_BASE_URL=${local.base}`);
    expect(await page(local, '/docs/getting-started.md')).toContain(`(${local.base}/docs/cli.md)`);
  });

  it('import the packages, not repository files', async () => {
    const signing = await page(local, '/docs/signing.md');
    expect(signing).toContain("from '@domain-sales/client/protocol'");
    expect(signing).toContain('@domain-sales/contract/vectors/signing.json');
    expect(signing).toContain(`(${local.base}/docs/vectors/signing.json)`);
    expect(await page(local, '/docs/webhooks-and-events.md')).toContain("from '@domain-sales/client/webhooks'");
    expect(await page(local, '/docs/oauth.md')).toContain("from '@domain-sales/client/oauth'");
    expect(await page(local, '/docs/getting-started.md')).toContain("from '@domain-sales/client'");
  });
});

describe('the signing vectors', () => {
  it.each(['local', 'hosted'] as const)('are served at /docs/vectors/signing.json (%s)', async (which) => {
    const d = which === 'local' ? local : hosted;
    clock.advance(61_000);
    const res = await fetch(`${d.server.url}/docs/vectors/signing.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(await res.text())).toEqual(JSON.parse(VECTORS));
  });

  it('are listed by /llms.txt and the docs start page', async () => {
    expect(await page(local, '/llms.txt')).toContain(`${local.base}/docs/vectors/signing.json`);
    expect(await page(hosted, '/docs.md')).toContain(`${PUBLIC}/docs/vectors/signing.json`);
  });
});
