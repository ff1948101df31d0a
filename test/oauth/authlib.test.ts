// A second, independent OAuth client drives the whole flow: Debian's python3-authlib (for
// /usr/bin/python3; .ci/run installs it), running test/oauth/authlib_flow.py against a real
// server. authlib validates the metadata (RFC 8414; OpenID Connect Discovery is not served:
// 404), the registration answer (RFC 7591), computes PKCE S256, checks state on the
// callback, exchanges, refreshes; this file asserts what it reports. The server is addressed as
// http://localhost:<port>, which authlib accepts as a secure transport without any override.
// Without authlib the test is skipped, loudly.
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { databases } from '../server/support/http.ts';
import { SANDBOX_USER } from './support.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./authlib_flow.py', import.meta.url));
const probe = spawnSync(PYTHON, ['-c', 'import authlib, requests; print(authlib.__version__)'], { encoding: 'utf8' });
const AUTHLIB = probe.status === 0 ? probe.stdout.trim() : undefined;
if (!AUTHLIB) {
  console.warn(
    `\n*** python3-authlib is not importable by ${PYTHON}: the independent OAuth client test (authlib) is SKIPPED (apt-get install -y python3-authlib python3-requests; .ci/run installs them) ***\n${probe.stderr ?? ''}`,
  );
}

interface Report {
  authlib: string;
  discovery: {
    issuer: string;
    scopes_supported: string[];
    rfc8414_error: string | null;
    openid_configuration_status: number;
  };
  registration: {
    status: number;
    cache_control: string | null;
    client_id: string;
    token_endpoint_auth_method: string;
    client_secret: unknown;
  };
  authorization_request: { code_challenge_method: string; has_challenge: boolean };
  sign_in: {
    page_status: number;
    field_names: string[];
    status: number;
    iss: string;
    state_echoed: boolean;
    has_code: boolean;
  };
  token: { token_type: string; scope: string; expires_in: number; has_refresh_token: boolean };
  search: { price_masked: boolean; price: number | null };
  refresh: { rotated: boolean; new_access_token: boolean; search_status: number };
  reuse: string | null;
  after_reuse: { search_status: number; refresh: string | null };
  code_replay: string | null;
}

const run = promisify(execFile);

describe.skipIf(!AUTHLIB).each(databases())(
  `authlib ${AUTHLIB ?? ''} drives the whole OAuth flow ($name)`,
  ({ databaseUrl }) => {
    let h: Harness;
    let report: Report;
    let base: string;

    beforeAll(async () => {
      h = await startHarness({ databaseUrl, inventorySize: 20, dispatch: false });
      await ensureSandboxUser(h.store, SANDBOX_USER);
      base = h.baseUrl.replace('127.0.0.1', 'localhost');
      const { stdout } = await run(PYTHON, [SCRIPT, base, SANDBOX_USER.email, SANDBOX_USER.password], {
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8' },
      });
      report = JSON.parse(stdout) as Report;
    }, 90_000);
    afterAll(async () => {
      await h?.close();
    });

    it("discovers metadata that authlib's AuthorizationServerMetadata.validate accepts (RFC 8414); no OpenID discovery is served (404)", () => {
      expect(report.discovery.issuer).toBe(base);
      expect(report.discovery.scopes_supported).not.toContain('openid');
      expect(report.discovery.rfc8414_error).toBeNull();
      expect(report.discovery.openid_configuration_status).toBe(404);
    });

    it('registers a public client (201, no-store, auth method none, no secret)', () => {
      expect(report.registration).toMatchObject({
        status: 201,
        cache_control: 'no-store',
        token_endpoint_auth_method: 'none',
      });
      expect(report.registration.client_id).toMatch(/./);
      expect(report.registration.client_secret).toBeNull();
    });

    it('asks with PKCE S256 and signs in through the form as a browser posts it; the callback carries code, state and iss', () => {
      expect(report.authorization_request).toEqual({
        code_challenge_method: 'S256',
        has_challenge: true,
        state: expect.any(String),
      });
      expect(report.sign_in).toMatchObject({
        page_status: 200,
        status: 303,
        iss: base,
        state_echoed: true,
        has_code: true,
      });
      expect(report.sign_in.field_names).toEqual(
        expect.arrayContaining(['auth_request', 'csrf_token', 'email', 'password']),
      );
    });

    it('exchanges the code for a Bearer token that unmasks prices; the code is single-use', () => {
      expect(report.token).toMatchObject({
        token_type: 'Bearer',
        scope: 'pricing:read',
        expires_in: 1800,
        has_refresh_token: true,
      });
      expect(report.search.price_masked).toBe(false);
      expect(report.search.price).toEqual(expect.any(Number));
      expect(report.code_replay).toBe('invalid_grant');
    });

    it('rotates the refresh token; the rotated one presented again is refused and revokes the grant', () => {
      expect(report.refresh).toEqual({ rotated: true, new_access_token: true, search_status: 200 });
      expect(report.reuse).toBe('invalid_grant');
      expect(report.after_reuse).toEqual({ search_status: 401, refresh: 'invalid_grant' });
    });
  },
);
