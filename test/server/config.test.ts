// The settings added with the public surface are read from the environment as documented.
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { openDatabase } from '../../server/store/database.ts';
import { sql } from 'kysely';
import { tempFolder } from '../support/temp-folder.ts';

/** An https PUBLIC_BASE_URL refuses the default sandbox password (server/ops/deployment-secrets.ts). */
const SECRET_PASSWORD = 'config-test-secret-password';
const env = (extra: Record<string, string>) => ({ DATA_DIR: tempFolder('config-'), ...extra });

describe('configuration', () => {
  it('reads SQLITE_SYNCHRONOUS (default full) and refuses other values', () => {
    expect(configFromEnv(env({})).sqliteSynchronous).toBe('full');
    expect(configFromEnv(env({ SQLITE_SYNCHRONOUS: 'NORMAL' })).sqliteSynchronous).toBe('normal');
    expect(() => configFromEnv(env({ SQLITE_SYNCHRONOUS: 'off' }))).toThrow(/SQLITE_SYNCHRONOUS/);
  });

  it('opens SQLite with the chosen synchronous level', async () => {
    for (const [level, expected] of [
      ['full', 2],
      ['normal', 1],
    ] as const) {
      const opened = await openDatabase({ dataDir: tempFolder('sync-'), sqliteSynchronous: level });
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(opened.db);
      expect(rows[0]?.synchronous, level).toBe(expected);
      await opened.close();
    }
  });

  it('reads PUBLIC_BASE_URL only when set, MCP_ALLOWED_ORIGINS as a list, RDAP_LOOKUP as a flag', () => {
    const plain = configFromEnv(env({}));
    expect(plain.publicBaseUrl).toBeUndefined();
    expect(plain.rdapLookup).toBe(false);
    expect(plain.mcpAllowedOrigins).toEqual([]);
    const set = configFromEnv(
      env({
        PUBLIC_BASE_URL: 'https://api.example.com/',
        SANDBOX_USER_PASSWORD: SECRET_PASSWORD,
        MCP_ALLOWED_ORIGINS: 'https://a.example, https://b.example/',
        RDAP_LOOKUP: 'true',
      }),
    );
    expect(set.publicBaseUrl).toBe('https://api.example.com');
    expect(set.mcpAllowedOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(set.rdapLookup).toBe(true);
  });

  it('reads SANDBOX_WEBHOOK_LOOPBACK: allowed by default only on a loopback server not published over https', () => {
    const loopback = (extra: Record<string, string>) => configFromEnv(env(extra)).sandboxWebhookLoopback;
    // A developer's `npm start`.
    expect(loopback({})).toBe(true);
    expect(loopback({ HOST: '::1' })).toBe(true);
    expect(loopback({ PUBLIC_BASE_URL: 'http://localhost:8080' })).toBe(true);
    // A sandbox others reach: published over https, under a public name, or listening on every interface.
    expect(loopback({ PUBLIC_BASE_URL: 'https://sandbox.example.com', SANDBOX_USER_PASSWORD: SECRET_PASSWORD })).toBe(
      false,
    );
    expect(loopback({ PUBLIC_BASE_URL: 'https://localhost:8443', SANDBOX_USER_PASSWORD: SECRET_PASSWORD })).toBe(false);
    expect(loopback({ PUBLIC_BASE_URL: 'http://sandbox.example.com' })).toBe(false);
    expect(loopback({ HOST: '0.0.0.0' })).toBe(false);
    expect(loopback({ HOST: '10.0.0.5' })).toBe(false);
    // The setting decides when given.
    expect(loopback({ SANDBOX_WEBHOOK_LOOPBACK: 'refuse' })).toBe(false);
    expect(loopback({ HOST: '0.0.0.0', SANDBOX_WEBHOOK_LOOPBACK: 'allow' })).toBe(true);
    expect(() => loopback({ SANDBOX_WEBHOOK_LOOPBACK: 'yes' })).toThrow(
      /SANDBOX_WEBHOOK_LOOPBACK must be allow or refuse/,
    );
  });

  it('refuses weak secrets only when PUBLIC_BASE_URL is https, and says which setting to fix, never its value', () => {
    const strong = 'x'.repeat(32);
    const https = { PUBLIC_BASE_URL: 'https://api.example.com' };
    expect(() =>
      configFromEnv(env({ ...https, ADMIN_TOKEN: 'change-me', SANDBOX_USER_PASSWORD: SECRET_PASSWORD })),
    ).toThrow(/^Refusing to start: PUBLIC_BASE_URL is https .*ADMIN_TOKEN is an example value/);
    expect(() =>
      configFromEnv(env({ ...https, ADMIN_TOKEN: 'CHANGE-ME', SANDBOX_USER_PASSWORD: SECRET_PASSWORD })),
    ).toThrow(/example value/);
    expect(() =>
      configFromEnv(env({ ...https, ADMIN_TOKEN: strong.slice(1), SANDBOX_USER_PASSWORD: SECRET_PASSWORD })),
    ).toThrow(/ADMIN_TOKEN is shorter than 32 characters/);
    expect(() => configFromEnv(env({ ...https, ADMIN_TOKEN: strong }))).toThrow(/SANDBOX_USER_PASSWORD/);
    expect(() => configFromEnv(env({ ...https, SANDBOX_USER_PASSWORD: 'sandbox-password' }))).toThrow(
      /SANDBOX_USER_PASSWORD/,
    );
    const ok = configFromEnv(env({ ...https, ADMIN_TOKEN: strong, SANDBOX_USER_PASSWORD: SECRET_PASSWORD }));
    expect(ok.weakSecrets).toBeUndefined();
    // No operator token at all is fine: the operator API is off.
    expect(configFromEnv(env({ ...https, SANDBOX_USER_PASSWORD: SECRET_PASSWORD })).adminToken).toBeUndefined();
    // http (a developer's loopback server, or behind a plain-http name): kept, listed for a warning.
    const dev = configFromEnv(env({ ADMIN_TOKEN: 'change-me' }));
    expect(dev.adminToken).toBe('change-me');
    expect(dev.weakSecrets).toHaveLength(2);
    expect(dev.weakSecrets?.join(' ')).not.toContain('change-me');
    expect(configFromEnv(env({ PUBLIC_BASE_URL: 'http://sandbox.example.com' })).weakSecrets).toHaveLength(1);
  });
});
