// A complete reference server started the way `npm start` starts it (sandbox user and its
// domains seeded at start), and a real bearer token from its OAuth flow: register a client,
// sign in as the sandbox user on the authorization page, exchange the code with PKCE.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';

export const SANDBOX_EMAIL = 'bulk-sandbox@example.com';
const SANDBOX_PASSWORD = 'bulk-sandbox-password';

export interface TestServer extends RunningServer {
  /** The sandbox user's id. */
  userId: string;
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bulk-mcp-'));
  const config = configFromEnv({
    DATA_DIR: dataDir,
    PORT: '0',
    SANDBOX_INVENTORY_SIZE: '300',
    SANDBOX_USER_EMAIL: SANDBOX_EMAIL,
    SANDBOX_USER_PASSWORD: SANDBOX_PASSWORD,
  });
  const running = await startServer({ config, log: () => {} });
  const user = await running.store.oauth.findUserByEmail(SANDBOX_EMAIL);
  if (!user) throw new Error('the sandbox user was not seeded');
  return {
    ...running,
    userId: user.id,
    async close() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const hidden = (html: string, name: string) => {
  const m = new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`the sign-in page has no ${name}: ${html.slice(0, 500)}`);
  return (m[1] as string)
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&');
};

/** An access token of the sandbox user with `scope`, bound to `resource` (default: the base URL). */
export async function signIn(base: string, scope: string, resource = base): Promise<string> {
  const redirectUri = 'http://127.0.0.1/callback';
  const registered = await fetch(`${base}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      client_name: 'bulk and mcp tests',
      scope: 'pricing:read domains:manage',
    }),
  });
  if (registered.status !== 201)
    throw new Error(`registration failed: ${registered.status} ${await registered.text()}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st4te',
    scope,
    resource,
  })) {
    authorize.searchParams.set(k, v);
  }
  const page = await fetch(authorize, { redirect: 'manual', headers: { accept: 'text/html' } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${html.slice(0, 300)}`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const form = new URLSearchParams({
    auth_request: hidden(html, 'auth_request'),
    csrf_token: hidden(html, 'csrf_token'),
    email: SANDBOX_EMAIL,
    password: SANDBOX_PASSWORD,
    decision: 'approve',
  });
  const approved = await fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie },
    body: form,
  });
  const code = new URL(approved.headers.get('location') ?? 'http://x/').searchParams.get('code');
  if (!code)
    throw new Error(
      `approval gave no code: ${approved.status} ${approved.headers.get('location')} ${(await approved.text()).slice(0, 300)}`,
    );
  const token = await fetch(`${base}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  if (token.status !== 200) throw new Error(`token exchange failed: ${token.status} ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
