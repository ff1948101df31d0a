// Faults the reference server cannot be switched into: a proxy in front of it breaks the
// contract the way real infrastructure does (a cache that replays, a gateway that rewrites error
// bodies or drops headers), and the suite must still say which rule broke.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance, startReferenceServer } from '../../conformance/run.ts';
import { carelessGateway, startRawFront, type FrontFault } from '../support/raw-front.ts';

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: string;
}
type Mutation = (
  request: { method: string; url: string; headers: Record<string, string> },
  upstream: () => Promise<Upstream>,
) => Promise<Upstream>;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

async function startProxy(target: string, mutate: Mutation): Promise<{ url: string; close(): Promise<void> }> {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server; vitest reports an unhandled rejection
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers };
    const upstream = async (): Promise<Upstream> => {
      const body = Buffer.concat(chunks);
      const r = await fetch(target + request.url, {
        method: request.method,
        headers,
        redirect: 'manual',
        ...(body.length ? { body } : {}),
      });
      const out: Record<string, string> = {};
      r.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) out[name] = value;
      });
      return { status: r.status, headers: out, body: await r.text() };
    };
    const answer = await mutate(request, upstream);
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A cache keyed on the request line and signature headers: an identical request gets the stored answer. */
const replayingCache: Mutation = (() => {
  const cache = new Map<string, Upstream>();
  return async (request, upstream) => {
    const key = `${request.method} ${request.url} ${request.headers['x-service-nonce'] ?? ''} ${request.headers['x-service-signature'] ?? ''}`;
    const hit = request.method === 'GET' ? cache.get(key) : undefined;
    if (hit) return hit;
    const answer = await upstream();
    if (answer.status < 300) cache.set(key, answer);
    return answer;
  };
})();

/** A gateway that folds every 401 into one generic code. */
const genericAuthErrors: Mutation = async (_request, upstream) => {
  const answer = await upstream();
  if (answer.status !== 401) return answer;
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  return { ...answer, body: JSON.stringify({ ...body, code: 'invalid_signature' }) };
};

/** A gateway that strips headers it does not know. */
const strippedHeaders: Mutation = async (_request, upstream) => {
  const answer = await upstream();
  const { 'x-request-id': _id, ...headers } = answer.headers;
  return { ...answer, headers };
};

/** A layer that trims list answers to a maximum it believes in, losing an item per page. */
const trimmedLists: Mutation = async (_request, upstream) => {
  const answer = await upstream();
  if (answer.status !== 200 || !answer.headers['content-type']?.includes('json')) return answer;
  const body = JSON.parse(answer.body) as { data?: unknown[]; events?: unknown[] };
  if (Array.isArray(body.events) && body.events.length > 1) body.events = body.events.slice(0, -1);
  if (Array.isArray(body.data) && body.data.length > 1) body.data = body.data.slice(0, -1);
  return { ...answer, body: JSON.stringify(body) };
};

/** A shared cache keyed on the request line alone: one partner's list answers reach another. */
const credentialBlindCache: Mutation = (() => {
  const cache = new Map<string, Upstream>();
  return async (request, upstream) => {
    const cacheable =
      request.method === 'GET' &&
      /^\/api\/partner\/v1\/(orders|brokerage|links|payouts|settlements|transactions)(\?|$)/.test(request.url);
    const hit = cacheable ? cache.get(request.url) : undefined;
    if (hit) return hit;
    const answer = await upstream();
    if (cacheable && answer.status === 200) cache.set(request.url, answer);
    return answer;
  };
})();

/** A gateway that drops Cache-Control from partner answers, so a shared cache may keep them. */
const storablePartnerAnswers: Mutation = async (request, upstream) => {
  const answer = await upstream();
  if (!request.url.startsWith('/api/partner/')) return answer;
  const { 'cache-control': _cacheControl, ...headers } = answer.headers;
  return { ...answer, headers };
};

const CASES: Array<[string, Mutation, string]> = [
  ['a cache that replays identical signed requests', replayingCache, 'nonce-replay'],
  ['a gateway that folds 401 codes into invalid_signature', genericAuthErrors, 'clock-skew'],
  ['a gateway that strips X-Request-Id', strippedHeaders, 'schema'],
  ['a layer that drops the last item of each list page', trimmedLists, 'pagination'],
  [
    'a cache that serves one partner’s lists to another (keyed without the credential)',
    credentialBlindCache,
    'authorization',
  ],
];

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()?.();
});

describe('the suite against faults injected outside the server', () => {
  it.each(CASES.map(([name, mutate, family]) => ({ name, mutate, family })))(
    '$name is caught by the $family family',
    async ({ mutate, family }) => {
      const server = await startReferenceServer();
      cleanup.push(server.stop);
      const proxy = await startProxy(server.url, mutate);
      cleanup.push(proxy.close);
      const { results } = await runConformance({
        baseUrl: proxy.url,
        adminToken: server.adminToken,
        only: [family],
        seed: 11,
        numRuns: 10,
        reference: true,
      });
      expect(results.length).toBeGreaterThan(0);
      expect(results.filter((r) => r.status === 'failed').map((r) => r.check)).not.toEqual([]);
    },
    120_000,
  );

  it('names the no-store rule when a gateway drops Cache-Control from partner answers', async () => {
    const server = await startReferenceServer();
    cleanup.push(server.stop);
    const proxy = await startProxy(server.url, storablePartnerAnswers);
    cleanup.push(proxy.close);
    const { results } = await runConformance({
      baseUrl: proxy.url,
      adminToken: server.adminToken,
      only: ['headers'],
      seed: 11,
      numRuns: 10,
      reference: true,
    });
    const failed = results.filter((r) => r.status === 'failed').map((r) => r.id);
    expect(failed).toContain('partner.headers.no-store');
    // Nothing else in the family depends on Cache-Control (x-security-headers' own check aside).
    expect(failed.filter((id) => id !== 'partner.headers.security')).toEqual(['partner.headers.no-store']);
  }, 120_000);

  it('passes through an honest proxy (the failures above are the faults’)', async () => {
    const server = await startReferenceServer();
    cleanup.push(server.stop);
    const proxy = await startProxy(server.url, (_request, upstream) => upstream());
    cleanup.push(proxy.close);
    const { results } = await runConformance({
      baseUrl: proxy.url,
      adminToken: server.adminToken,
      only: ['nonce-replay', 'clock-skew', 'pagination', 'headers'],
      seed: 11,
      numRuns: 10,
      reference: true,
    });
    expect(results.filter((r) => r.status !== 'passed')).toEqual([]);
  }, 120_000);
});

/** The requirements of `x-protocol-refusals`, which the careless gateway breaks each. */
const REFUSALS = ['http-version', 'connect', 'expectation', 'continue-too-large'].map(
  (r) => `partner.http.refusal.${r}`,
);

/** The x-protocol-refusals checks run through an honest proxy, with a front that has `fault` if any; the IDs that failed. */
async function refusalFailures(fault: FrontFault | undefined): Promise<string[]> {
  const server = await startReferenceServer();
  cleanup.push(server.stop);
  const proxy = await startProxy(server.url, (_request, upstream) => upstream());
  cleanup.push(proxy.close);
  // node:http cannot relay HTTP/2.0, CONNECT or Expect as sent: the front passes those to the server.
  const front = await startRawFront(proxy.url, server.url, fault);
  cleanup.push(front.close);
  const { results } = await runConformance({
    baseUrl: front.url,
    adminToken: server.adminToken,
    only: REFUSALS,
    seed: 11,
    numRuns: 10,
    reference: true,
  });
  expect(results.map((r) => r.id).sort()).toEqual([...REFUSALS].sort());
  return results.filter((r) => r.status === 'failed').map((r) => r.id);
}

describe('the partner protocol refusals against a gateway that answers them itself', () => {
  it('an honest front passes every x-protocol-refusals check', async () => {
    expect(await refusalFailures(undefined)).toEqual([]);
  }, 120_000);

  it('an HTML 400 for HTTP/2.0, 200 for CONNECT, an unknown Expect dropped and its own 100 Continue fail each check of the http-framing family', async () => {
    expect((await refusalFailures(carelessGateway)).sort()).toEqual([...REFUSALS].sort());
  }, 120_000);
});
