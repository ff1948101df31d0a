// Proof of power for the public families: a proxy the server knows nothing of breaks one rule of
// the public contract the way real infrastructure or a careless rewrite would, and the family that
// guards the rule must fail, on a check that passes through an honest proxy. The proxy connects
// upstream from the client's own loopback address, so the server still counts each of the suite's
// clients apart (the public rate limit is per client IP), and forwards Host, so the OAuth issuer
// and resource URLs are the proxy's.
import http, { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, startReferenceServer } from '../../conformance/run.ts';
import { ALL_FAMILIES } from '../../conformance/families/index.ts';
import { carelessGateway, startRawFront, type FrontFault } from '../support/raw-front.ts';

interface Upstream {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}
interface ProxiedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}
type Mutation = (request: ProxiedRequest, upstream: () => Promise<Upstream>) => Promise<Upstream>;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

async function startProxy(target: string, mutate: Mutation): Promise<{ url: string; close(): Promise<void> }> {
  const up = new URL(target);
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server; vitest reports an unhandled rejection
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
    const request = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    const from = req.socket.remoteAddress?.replace(/^::ffff:/, '');
    const upstream = () =>
      new Promise<Upstream>((resolve, reject) => {
        const body = Buffer.concat(chunks);
        const r = http.request(
          {
            hostname: up.hostname,
            port: up.port,
            method: request.method,
            path: request.url,
            headers: { ...headers, 'content-length': String(body.length) },
            ...(from?.startsWith('127.') ? { localAddress: from } : {}),
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              const out: Record<string, string | string[]> = {};
              for (const [k, v] of Object.entries(answer.headers))
                if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
              resolve({ status: answer.statusCode ?? 502, headers: out, body: Buffer.concat(parts).toString('utf8') });
            });
            answer.on('error', reject);
          },
        );
        r.on('error', reject);
        r.end(body);
      });
    try {
      const answer = await mutate(request, upstream);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const json = (a: Upstream) =>
  String(a.headers['content-type'] ?? '').includes('json')
    ? (JSON.parse(a.body) as Record<string, unknown>)
    : undefined;
const path = (r: ProxiedRequest) => r.url.split('?')[0];

/** A cache layer that serves the first row of a listings page again in place of its last. */
const duplicatedListing: Mutation = async (request, upstream) => {
  const answer = await upstream();
  const body = path(request) === '/api/market/listings' && answer.status === 200 ? json(answer) : undefined;
  const data = body?.data as unknown[] | undefined;
  if (!data || data.length < 2) return answer;
  data[data.length - 1] = data[0];
  return { ...answer, body: JSON.stringify(body) };
};

/** A gateway that strips WWW-Authenticate. */
const noChallenge: Mutation = async (_request, upstream) => {
  const answer = await upstream();
  const { 'www-authenticate': _dropped, ...headers } = answer.headers;
  return { ...answer, headers };
};

/** A gateway answering HEAD with a media type of its own (the GET's is what HEAD must repeat). */
const headOwnType: Mutation = async (request, upstream) => {
  const answer = await upstream();
  return request.method === 'HEAD'
    ? { ...answer, headers: { ...answer.headers, 'content-type': 'text/plain' } }
    : answer;
};

const maskAll = (body: Record<string, unknown>) => {
  for (const r of [body.result, ...((body.alternatives as unknown[] | undefined) ?? [])] as Array<
    Record<string, unknown> | undefined
  >) {
    if (r && r.price !== null) Object.assign(r, { price: null, price_masked: true });
  }
};

/** A cache that ignores Authorization: a bearer search gets the masked answer. */
const maskedForBearer: Mutation = async (request, upstream) => {
  const answer = await upstream();
  if (path(request) !== '/api/domain/search' || !request.headers.authorization || answer.status !== 200) return answer;
  const body = json(answer)!;
  maskAll(body);
  return { ...answer, body: JSON.stringify(body) };
};

/** A layer that serves search_domain's real prices to anonymous MCP clients. */
const unmaskedMcp: Mutation = async (request, upstream) => {
  const answer = await upstream();
  if (path(request) !== '/mcp' || request.headers.authorization || answer.status !== 200) return answer;
  const rewrite = (message: string) => {
    const m = JSON.parse(message) as { result?: { structuredContent?: { result?: Record<string, unknown> } } };
    const head = m.result?.structuredContent?.result;
    if (head && head.price_masked === true) Object.assign(head, { price: 4242, price_masked: false });
    return JSON.stringify(m);
  };
  if (String(answer.headers['content-type']).includes('json')) return { ...answer, body: rewrite(answer.body) };
  return { ...answer, body: answer.body.replace(/^data: (.*)$/gm, (_l, data: string) => `data: ${rewrite(data)}`) };
};

/** A wrapper that reports every batch entry as a success. */
const batchEntriesOk: Mutation = async (request, upstream) => {
  const answer = await upstream();
  if (path(request) !== '/api/batch' || request.method !== 'POST' || answer.status !== 200) return answer;
  const body = json(answer)!;
  for (const r of body.results as Array<{ status: number }>) if (r.status === 400) r.status = 200;
  return { ...answer, body: JSON.stringify(body) };
};

/** A CDN that drops the rate-limit fields it does not know. */
const noRateLimit: Mutation = async (request, upstream) => {
  const answer = await upstream();
  if (request.url.startsWith('/api/partner/')) return answer;
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !k.startsWith('ratelimit')));
  return { ...answer, headers };
};

/** A proxy that swaps the pages' policy for a permissive one of its own: any site may frame them, scripts inline run. */
const framable: Mutation = async (request, upstream) => {
  const answer = await upstream();
  if (!/^text\/html/i.test(String(answer.headers['content-type'] ?? ''))) return answer;
  const headers = Object.fromEntries(
    Object.entries(answer.headers).filter(([k]) => k !== 'x-frame-options' && k !== 'content-security-policy'),
  );
  return { ...answer, headers: { ...headers, 'content-security-policy': "default-src 'self' 'unsafe-inline'" } };
};

/** A rewrite that loses `total` from listing pages. */
const noTotal: Mutation = async (request, upstream) => {
  const answer = await upstream();
  const body = path(request) === '/api/market/listings' && answer.status === 200 ? json(answer) : undefined;
  if (!body) return answer;
  delete (body.page as Record<string, unknown>).total;
  return { ...answer, body: JSON.stringify(body) };
};

/** A gateway whose request-body limit (16 KiB) is below what the contract's largest bulk request needs. */
const smallBodyLimit: Mutation = async (request, upstream) => {
  if (request.method === 'POST' && Buffer.byteLength(request.body) > 16 * 1024) {
    return {
      status: 413,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'payload_too_large', message: 'gateway limit 16 KiB' }),
    };
  }
  return upstream();
};

/** An idempotency layer in front of search keyed on Idempotency-Key alone, for every client. */
const globalIdempotency: Mutation = (() => {
  const stored = new Map<string, { body: string; answer: Upstream }>();
  return async (request, upstream) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || path(request) !== '/api/domain/search' || !key) return upstream();
    const answer = await upstream();
    const seen = stored.get(key);
    if (!seen) {
      if (answer.status === 200) stored.set(key, { body: request.body, answer });
      return answer;
    }
    if (seen.body !== request.body)
      return {
        ...answer,
        status: 409,
        body: JSON.stringify({ code: 'conflict', message: 'Idempotency-Key reused with another body' }),
      };
    return { ...seen.answer, headers: { ...seen.answer.headers, 'idempotent-replayed': 'true' } };
  };
})();

/** The fault, the family that must catch it, and (when the family's check may fail for other reasons too) what its report must name. */
const CASES: Array<[string, Mutation, string, RegExp?]> = [
  ['a cache serving a listings row twice (and losing another)', duplicatedListing, 'public-pagination'],
  ['a gateway stripping WWW-Authenticate', noChallenge, 'public-error-codes'],
  ['a gateway answering HEAD with a media type of its own', headOwnType, 'public-http-framing', /HEAD/],
  ['a layer reporting bad batch entries as 200', batchEntriesOk, 'public-error-codes'],
  ['a cache serving masked prices to bearer searches', maskedForBearer, 'oauth'],
  ['a layer unmasking search_domain for anonymous MCP clients', unmaskedMcp, 'mcp'],
  ['a CDN dropping the RateLimit fields of public answers', noRateLimit, 'public-headers'],
  [
    "a proxy replacing the pages' security headers with a framable, script-friendly policy",
    framable,
    'public-headers',
    /security-header problems/,
  ],
  [
    'a rewrite losing page.total from listing pages',
    noTotal,
    'public-schema',
    /GET \/api\/market\/listings → 200[\s\S]*must have required property 'total'/,
  ],
  ['a gateway with a 16 KiB body limit', smallBodyLimit, 'public-edges', /bulk lock of 1000 domains/],
  [
    'an idempotency layer that ignores who the client is',
    globalIdempotency,
    'public-authorization',
    /first use of the key/,
  ],
];

const PUBLIC = ALL_FAMILIES.filter((f) => f.surface === 'public').map((f) => f.name);

/** The requirements of `x-protocol-refusals`, which the careless gateway below breaks each. */
const REFUSALS = ['http-version', 'connect', 'expectation', 'continue-too-large'].map(
  (r) => `public.http.refusal.${r}`,
);

async function failedChecks(
  mutate: Mutation,
  only: string[],
  frontFault?: FrontFault,
): Promise<Array<{ id: string; check: string; message: string }>> {
  const server = await startReferenceServer();
  const proxy = await startProxy(server.url, mutate);
  // In front, so that what node:http cannot relay (HTTP/2.0, CONNECT, Expect) reaches the server as sent.
  const front = await startRawFront(proxy.url, server.url, frontFault);
  try {
    const { results } = await runConformance({
      baseUrl: front.url,
      adminToken: server.adminToken,
      only,
      seed: 5,
      numRuns: 6,
      reference: true,
    });
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 'skipped')).toEqual([]);
    return results
      .filter((r) => r.status === 'failed')
      .map((r) => ({ id: r.id, check: `${r.family} › ${r.check}`, message: r.message ?? '' }));
  } finally {
    await front.close();
    await proxy.close();
    await server.stop();
  }
}

describe('the public families against faults injected outside the server', () => {
  // What fails through an honest proxy is the server's own doing; a fault must add a failure.
  let honest: string[] = [];
  beforeAll(async () => {
    honest = (await failedChecks((_request, upstream) => upstream(), PUBLIC)).map((f) => f.check);
  }, 120_000);

  it.each(CASES.map(([name, mutate, family, mark]) => ({ name, mutate, family, mark })))(
    '$name is caught by the $family family',
    async ({ mutate, family, mark }) => {
      const failed = await failedChecks(mutate, [family]);
      const caught = mark
        ? failed.filter((f) => mark.test(f.message))
        : failed.filter((f) => !honest.includes(f.check));
      expect(
        caught.map((f) => f.check),
        `no ${family} check noticed the fault`,
      ).not.toEqual([]);
    },
    120_000,
  );

  it('a gateway answering the protocol refusals its own way (an HTML 400 for HTTP/2.0, 200 for CONNECT, an unknown Expect dropped, its own 100 Continue) fails each x-protocol-refusals check', async () => {
    const failed = await failedChecks((_request, upstream) => upstream(), REFUSALS, carelessGateway);
    expect(honest.filter((check) => failed.some((f) => f.check === check))).toEqual([]);
    expect(failed.map((f) => f.id).sort()).toEqual([...REFUSALS].sort());
  }, 120_000);

  it('every public family is covered by at least one fault', () => {
    const covered = new Set(CASES.map(([, , family]) => family));
    expect(PUBLIC.filter((name) => !covered.has(name))).toEqual([]);
  });

  afterAll(() => {
    if (honest.length > 0)
      console.warn(
        `through an honest proxy these public checks fail on the reference server itself:\n  ${honest.join('\n  ')}`,
      );
  });
});
