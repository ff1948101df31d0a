// The partner side of the benchmarks and drills: credentials minted through the operator API and
// requests signed with the pure protocol module (client/protocol), a fresh nonce and timestamp
// per request.
import { randomUUID } from 'node:crypto';
import { signedHeaders, splitRequestTarget } from '../../../client/protocol/index.ts';
import { ADMIN_TOKEN } from './processes.ts';

export interface Credential {
  keyId: string;
  secret: string;
  partnerId: string;
}

export const ALL_SCOPES = ['search', 'embed', 'buy', 'broker', 'refer', 'report', 'webhook'];
/** Quotas so high that a benchmark never meets them (each class is still counted). */
export const UNLIMITED = { search: 1_000_000_000, write: 1_000_000_000, reporting: 1_000_000_000 };

export async function mint(baseUrl: string, body: Record<string, unknown> = {}): Promise<Credential> {
  const res = await fetch(`${baseUrl}/api/admin/v1/credentials`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ environment: 'sandbox', scopes: ALL_SCOPES, rate_limits: UNLIMITED, ...body }),
  });
  const created = (await res.json()) as { key_id?: string; secret?: string; partner_id?: string };
  if (res.status !== 201 || !created.key_id || !created.secret || !created.partner_id) {
    throw new Error(`minting a credential failed: ${res.status} ${JSON.stringify(created)}`);
  }
  return { keyId: created.key_id, secret: created.secret, partnerId: created.partner_id };
}

/** The signature headers of one request (`target` is the path with its raw query). */
export function signFor(
  credential: Credential,
  method: string,
  target: string,
  body: string | Uint8Array = '',
  idempotencyKey?: string,
): Record<string, string> {
  const { path, query } = splitRequestTarget(target);
  return signedHeaders({
    keyId: credential.keyId,
    secret: credential.secret,
    method,
    path,
    query,
    timestamp: String(Math.floor(Date.now() / 1000)),
    nonce: randomUUID(),
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    idempotencyKey,
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json(): unknown;
}

/** One signed request with fetch; the body is sent exactly as signed. */
export async function signedRequest(
  baseUrl: string,
  credential: Credential,
  method: string,
  target: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Answer> {
  const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const idempotencyKey =
    method === 'POST' && /\/orders$/.test(target.split('?')[0] ?? '') && !extraHeaders['Idempotency-Key']
      ? randomUUID()
      : undefined;
  const res = await fetch(baseUrl + target, {
    method,
    headers: {
      ...(raw ? { 'content-type': 'application/json' } : {}),
      ...signFor(credential, method, target, raw, idempotencyKey),
      ...extraHeaders,
    },
    ...(raw ? { body: raw } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as unknown };
}

/** Listed sandbox domains with their prices, read through GET /domains/search. */
export async function listedDomains(
  baseUrl: string,
  credential: Credential,
  queries: string[],
): Promise<Array<{ domain: string; price_cents: number; currency: string }>> {
  const seen = new Map<string, { domain: string; price_cents: number; currency: string }>();
  for (const q of queries) {
    const res = await signedRequest(
      baseUrl,
      credential,
      'GET',
      `/api/partner/v1/domains/search?q=${encodeURIComponent(q)}`,
    );
    if (res.status !== 200) throw new Error(`search failed: ${res.status} ${res.text}`);
    for (const hit of (
      res.json() as {
        results: Array<{ domain: string; price_cents: number | null; currency: string | null; available: boolean }>;
      }
    ).results) {
      if (hit.available && hit.price_cents !== null && hit.currency)
        seen.set(hit.domain, { domain: hit.domain, price_cents: hit.price_cents, currency: hit.currency });
    }
  }
  return [...seen.values()];
}
