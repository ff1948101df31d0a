// Answers that carry a secret, a token or a capability URL are `Cache-Control: no-store` (the
// `Cache-Control-No-Store` response header each such operation declares; issue 31 item 10). The
// contract half: every operation whose success answer has such a member declares it. The HTTP
// half: the reference server sends what the contract declares.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract, type ApiContract } from '../../server/contract/index.ts';
import { declaredCacheControl } from '../../server/http/cache-control.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { signedRequest } from '../server/support/http.ts';

/** Members whose value is a secret, a bearer token or a capability URL. */
const SECRET_MEMBER = /^(secret|client_secret|access_token|refresh_token|progress_url)$/;

/** Every property name a schema can hold, at any depth, `$ref`s followed. */
function memberNames(contract: ApiContract, node: unknown, seen = new Set<unknown>()): string[] {
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  if (Array.isArray(node)) return node.flatMap((child) => memberNames(contract, child, seen));
  const resolved = contract.resolve(node);
  const props = resolved.properties;
  const names = props && typeof props === 'object' ? Object.keys(props) : [];
  return [...names, ...Object.values(resolved).flatMap((child) => memberNames(contract, child, seen))];
}

describe('no-store where an answer carries a secret (the contract)', () => {
  const contract = Contract.load();
  const cases = [contract.partner, contract.public, contract.admin].flatMap((api) =>
    api.operations.flatMap((op) => {
      const secrets = Object.entries(op.responses)
        .filter(([status]) => /^2/.test(status))
        .flatMap(([, response]) => memberNames(api, response.content))
        .filter((name) => SECRET_MEMBER.test(name));
      return secrets.length ? [{ api, op, secrets: [...new Set(secrets)] }] : [];
    }),
  );

  it('finds the operations that answer secrets (admin createCredential among them)', () => {
    expect(cases.map((c) => c.op.operationId)).toEqual(
      expect.arrayContaining(['createCredential', 'requestToken', 'getBrokerageCase']),
    );
  });

  it('each of them declares Cache-Control: no-store', () => {
    for (const { api, op, secrets } of cases)
      expect(declaredCacheControl(api, op), `${op.operationId} answers ${secrets.join(', ')}`).toBe('no-store');
  });
});

describe('no-store where an answer carries a secret (over HTTP)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
  });
  afterAll(() => h.close());

  it('admin POST /credentials (the secret, shown once)', async () => {
    const res = await h.admin('/credentials', { environment: 'sandbox', scopes: ['search'] });
    expect(res.status).toBe(201);
    expect((await res.json()).secret).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('partner brokerage cases (their progress_url is a capability)', async () => {
    const cred = await h.mint({ scopes: ['report'] });
    const res = await signedRequest(h, cred, { method: 'GET', path: '/api/partner/v1/brokerage' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('not on an answer without one (the rule is per operation)', async () => {
    const res = await fetch(`${h.baseUrl}/api/v1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control') ?? '').not.toContain('no-store');
  });
});
