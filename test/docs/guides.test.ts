// The hand-written guides state numbers, codes and names that the contract fixes. Each claim
// checked here is read from the guide's text and compared with the bundled documents (or the
// server's configuration for the sandbox user), so a change on either side fails the test.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_USER, configFromEnv } from '../../server/config.ts';
import { SANDBOX_USER_DOMAINS } from '../../server/bulk/seed.ts';
import { CATALOG, GUIDES } from '../../server/docs/catalog.ts';
import {
  arr,
  assertSchema,
  documents,
  guide,
  obj,
  operations,
  parameter,
  schema,
  section,
  tableRows,
  unquote,
} from './support.ts';

const { public: pub, partner, admin } = documents;
const statusOf = obj(schema(pub, 'ErrorCode')['x-status-of-code']) as Record<string, number>;
const slugs = new Set(CATALOG.map((e) => e.slug));

const seconds = (text: string): number => {
  const m = /^(\d+) (s|seconds?|min|minutes?|h|hours?|days?)$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: "${text}"`);
  const n = Number(m[1]);
  const unit = m[2] ?? '';
  if (unit.startsWith('s')) return n;
  if (unit.startsWith('min')) return n * 60;
  if (unit.startsWith('h')) return n * 3600;
  return n * 86400;
};

describe('every guide', () => {
  it.each(GUIDES.map((g) => g.slug))('%s links only pages that exist', (slug) => {
    // /docs/vectors/signing.json is a served file, not a page.
    const links = [...guide(slug).matchAll(/\]\(\/docs(?:\/([^)#.\s]+))?[^)]*\)/g)]
      .filter((m) => !m[0].includes('/docs/vectors/'))
      .map((m) => m[1]);
    for (const target of links)
      if (target !== undefined) expect(slugs.has(target), `${slug} → /docs/${target}`).toBe(true);
  });

  it.each(GUIDES.map((g) => g.slug))(
    '%s pairs every error code it names with the status the contract gives it',
    (slug) => {
      const text = guide(slug);
      const pairs = [...text.matchAll(/\b([1-5]\d\d) `([a-z_]+)`/g)].filter(
        ([, , code]) => code !== undefined && code in statusOf,
      );
      for (const [whole, status, code] of pairs) expect(Number(status), `${slug}: ${whole}`).toBe(statusOf[code ?? '']);
    },
  );

  it('checks a meaningful number of status and code pairs', () => {
    const total = GUIDES.reduce((n, g) => n + [...guide(g.slug).matchAll(/\b([1-5]\d\d) `([a-z_]+)`/g)].length, 0);
    expect(total).toBeGreaterThan(20);
  });
});

describe('the errors guide', () => {
  const rows = tableRows(section(guide('errors'), '## Every code and its status'));

  it('lists every ErrorCode once, with its x-status-of-code status', () => {
    const listed = rows
      .filter((r) => /^`[a-z_]+`$/.test(r[0] ?? ''))
      .map((r) => [unquote(r[0]), Number(r[1])] as const);
    expect(listed.map(([code]) => code).sort()).toEqual(arr(schema(pub, 'ErrorCode').enum).map(String).sort());
    for (const [code, status] of listed) expect(status, code).toBe(statusOf[code]);
  });

  it('gives the partner check order of x-signing', () => {
    const order = arr(obj(partner['x-signing'])['check-order']).map(String);
    const text = section(guide('errors'), '## The order of the partner checks').replace(/\s+/g, ' ');
    const named = [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((c) => order.includes(c ?? ''));
    expect(named.slice(0, order.length)).toEqual(order);
  });

  it('names the token errors of the token endpoint', () => {
    const tokenErrors = arr(
      schema(pub, 'TokenError').properties && obj(obj(schema(pub, 'TokenError').properties).error).enum,
    ).map(String);
    const text = section(guide('errors'), '## Answers that are not the `Error` body');
    for (const e of tokenErrors) expect(text).toContain(`\`${e}\``);
  });
});

describe('the rate-limits guide', () => {
  const text = guide('rate-limits');
  const rows = tableRows(text.split('## Which partner operations')[0] ?? '').filter(
    (r) => r[0] === 'Partner' || r[0] === 'Public',
  );

  it('states the quota and window of every class of both documents', () => {
    const expected = [
      ...Object.entries(obj(partner['x-rate-limit-classes'])).map(([cls, v]) => [
        'Partner',
        cls,
        obj(v).quota,
        obj(v)['window-seconds'],
      ]),
      ...Object.entries(obj(pub['x-rate-limit-classes'])).map(([cls, v]) => [
        'Public',
        cls,
        obj(v).quota,
        obj(v)['window-seconds'],
      ]),
    ];
    const stated = rows.map((r) => [r[0], unquote(r[1]), Number(r[2]), seconds(r[3] ?? '')]);
    expect(stated).toEqual(expected);
  });

  it('puts every partner operation in the class its x-rate-limit names', () => {
    const listing = section(text, '## Which partner operations are in which class').replace(/\s+/g, ' ');
    const stated = new Map<string, string>();
    for (const m of listing.matchAll(/- `([a-z]+)`[^:]*:(.*?)(?=- `[a-z]+`|Every public operation|$)/g)) {
      for (const op of (m[2] ?? '').matchAll(/`(GET|POST|PUT|PATCH|DELETE) ([^`]+)`/g))
        stated.set(`${op[1]} ${op[2]}`, m[1] ?? '');
    }
    const expected = new Map(
      operations(partner).map(({ method, path, op }) => [
        `${method} ${path.replace(/^\/api\/partner\/v1(?=\/)/, '')}`,
        String(op['x-rate-limit']),
      ]),
    );
    expect(stated).toEqual(expected);
  });

  it('shows the header forms of shared/headers.yaml', () => {
    const headers = obj(obj(pub.components).headers);
    for (const name of ['RateLimit-Policy', 'RateLimit']) {
      const pattern = new RegExp(String(obj(obj(headers[name]).schema).pattern));
      const line = text.split('\n').find((l) => l.startsWith(`${name}: `));
      expect(line, name).toBeDefined();
      expect(pattern.test((line ?? '').slice(name.length + 2)), name).toBe(true);
    }
  });
});

describe('the idempotency guide', () => {
  const text = guide('idempotency');
  const xIdem = obj(obj(obj(partner.paths)['/api/partner/v1/orders']).post)['x-idempotency'] as Record<string, unknown>;

  it('lists exactly the operations that take Idempotency-Key', () => {
    const takesKey = (doc: typeof pub) =>
      operations(doc)
        .filter(({ op }) => JSON.stringify(op.parameters ?? []).includes('/IdempotencyKey'))
        .map(({ method, path }) => `${method} ${path}`);
    const rows = tableRows(section(text, '## Where keys are used'));
    const listed = (surface: string) =>
      [...(rows.find((r) => r[0] === surface)?.[1] ?? '').matchAll(/`(POST|PUT|GET) ([^`]+)`/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
    expect(listed('Partner')).toEqual(takesKey(partner));
    expect(listed('Public')).toEqual(takesKey(pub));
  });

  it('states the key length and retention of x-idempotency and the stored outcomes', () => {
    const [min, max] = arr(xIdem['key-length']);
    expect(text).toContain(`${String(min)} to ${String(max)} characters`);
    expect(text).toContain(`at least **${String(xIdem['retention-hours'])} hours**`);
    const stored = section(text, '## What a retry gets').replace(/\s+/g, ' ');
    for (const outcome of arr(xIdem.stored).map(String)) {
      const [status, code] = outcome.split(' ');
      expect(stored).toContain(code ? `${status} \`${code}\`` : status);
    }
  });
});

describe('the pagination guide', () => {
  const rows = tableRows(guide('pagination').split('\n## ')[0] ?? '');
  const sizeOf = (p: Record<string, unknown>) => {
    const s = obj(p.schema);
    return `default ${String(s.default)}, ${String(s.minimum)} to ${String(s.maximum)}`;
  };
  const eventLimit =
    arr(obj(obj(obj(partner.paths)['/api/partner/v1/events']).get).parameters)
      .map(obj)
      .find((p) => p.name === 'limit') ?? {};

  it('gives the page sizes of the documents', () => {
    expect(rows.find((r) => r[0] === 'Partner lists')?.[2]).toBe(sizeOf(parameter(partner, 'Limit')));
    expect(rows.find((r) => r[0]?.startsWith('Partner event history'))?.[2]).toBe(sizeOf(eventLimit));
    expect(rows.find((r) => r[0]?.startsWith('Public listings'))?.[2]).toBe(sizeOf(parameter(pub, 'Limit')));
  });

  it('names every partner list that pages with a cursor', () => {
    const text = section(guide('pagination'), '## Partner lists').split('\n\n')[1]?.replace(/\s+/g, ' ') ?? '';
    const named = [...text.matchAll(/`(\/[^`]+)`/g)].map((m) => m[1]).filter((p) => p !== '/api/partner/v1');
    const paged = operations(partner)
      .filter(({ op }) => JSON.stringify(op.parameters ?? []).includes('/parameters/Cursor'))
      .map(({ path }) => path.replace('/api/partner/v1', ''));
    expect(named).toEqual(paged);
  });

  it('names the sort values of the listings', () => {
    const sort = arr(
      obj(
        obj(
          obj(obj(obj(pub.paths)['/api/market/listings']).get).parameters &&
            arr(obj(obj(obj(pub.paths)['/api/market/listings']).get).parameters)
              .map(obj)
              .find((p) => p.name === 'sort'),
        ).schema,
      ).enum,
    );
    expect(sort.length).toBe(4);
    for (const value of sort)
      expect(section(guide('pagination'), '## Public listings')).toContain(`\`${String(value)}\``);
  });
});

describe('the webhooks-and-events guide', () => {
  const text = guide('webhooks-and-events');
  const delivery = obj(partner['x-webhook-delivery']);

  it('gives the retry schedule and attempt count of x-webhook-delivery', () => {
    const delays = tableRows(section(text, '## Retries'))
      .filter((r) => /^\d+$/.test(r[0] ?? ''))
      .map((r) => seconds(r[1] ?? ''));
    expect(delays).toEqual(arr(delivery['retry-schedule-seconds']));
    expect(text).toContain(`${String(delivery['max-attempts'])} attempts in all`);
    expect(text).toContain(`**within ${String(delivery['timeout-seconds'])} seconds**`);
  });

  it('lists every event type, delivered exactly when x-delivered says so', () => {
    const eventType = schema(partner, 'EventType');
    const rows = tableRows(section(text, '## The event')).filter((r) => /^`[a-z_.]+`$/.test(r[0] ?? ''));
    expect(rows.map((r) => unquote(r[0]))).toEqual(arr(eventType.enum));
    const delivered = new Set(arr(eventType['x-delivered']).map(String));
    for (const r of rows) expect(r[2], r[0]).toBe(delivered.has(unquote(r[0])) ? 'yes' : 'no');
  });

  it('names the delivery headers of x-webhook-delivery', () => {
    const rows = tableRows(section(text, '## Receive a delivery')).map((r) => unquote(r[0]));
    expect(rows).toEqual(arr(delivery.headers));
  });

  it('shows an event that matches the Event schema', () => {
    const block = /```json\n([\s\S]*?)\n```/.exec(section(text, '## The event'))?.[1];
    assertSchema('partner', 'Event', JSON.parse(block ?? 'null'));
  });
});

describe('the oauth guide', () => {
  const text = guide('oauth');
  const token = obj(obj(obj(pub.paths)['/api/oauth/token']).post);
  const lifetimes = obj(token['x-token-lifetimes']);

  it('gives the lifetimes of x-token-lifetimes', () => {
    const rows = tableRows(section(text, '## Lifetimes'));
    const of = (label: string) =>
      seconds((rows.find((r) => r[0] === label)?.[1] ?? '').split(',')[0]?.replace(/\s*\(.*$/, '') ?? '');
    expect(of('Authorization code')).toBe(lifetimes.authorization_code_seconds);
    expect(of('Access token')).toBe(lifetimes.access_token_seconds);
    expect(of('Refresh token')).toBe(lifetimes.refresh_token_seconds);
    expect(text).toContain(`\`expires_in: ${String(lifetimes.access_token_seconds)}\``);
  });

  it('lists the scopes of the OAuth2 scheme', () => {
    const scopes = Object.keys(
      obj(obj(obj(obj(obj(obj(pub.components).securitySchemes).OAuth2).flows).authorizationCode).scopes),
    );
    expect(tableRows(section(text, '## Scopes')).map((r) => unquote(r[0]))).toEqual(scopes);
  });

  it("documents the sandbox user the server's configuration seeds", () => {
    const rows = tableRows(section(text, '## The sandbox user'));
    const email = rows.find((r) => r[0] === 'Email') ?? [];
    const password = rows.find((r) => r[0] === 'Password') ?? [];
    expect(unquote(email[2])).toBe(DEFAULT_SANDBOX_USER.email);
    expect(unquote(password[2])).toBe(DEFAULT_SANDBOX_USER.password);
    const configured = configFromEnv({
      DATA_DIR: '/nonexistent-unused',
      MASTER_KEY: '0'.repeat(64),
      [unquote(email[1])]: 'a@b.example',
      [unquote(password[1])]: 'pw-from-env',
    });
    expect(configured.sandboxUser).toEqual({ email: 'a@b.example', password: 'pw-from-env' });
    const example = /for example `([^`]+)`/.exec(section(text, '## The sandbox user'))?.[1];
    expect(SANDBOX_USER_DOMAINS).toContain(example);
  });

  it('states the sign-in throttle of x-signin-throttle', () => {
    const form = obj(obj(obj(pub.paths)['/oauth/authorize']).post);
    const throttle = obj(form['x-signin-throttle']);
    const rows = tableRows(section(text, '## Failed sign-ins'));
    const waits = arr(throttle['waits-minutes']).map(String);
    for (const [label, rule] of [
      ['Per account', obj(throttle['per-account'])],
      ['Per client address', obj(throttle['per-address'])],
    ] as const) {
      const row = rows.find((r) => r[0]?.startsWith(label));
      expect(row?.[1], label).toBe(String(rule['free-failures']));
      expect(row?.[2]?.match(/\d+/g), label).toEqual(waits);
    }
    expect(text).toContain(`${String(throttle['forgotten-after-hours'])} hours after the\nlast failure`);
  });

  it('states the PKCE method and redirect matching of the authorization endpoint', () => {
    const authorize = obj(obj(obj(pub.paths)['/oauth/authorize']).get);
    expect(arr(obj(authorize['x-pkce']).methods)).toEqual(['S256']);
    expect(text).toContain('`code_challenge_method` must be `S256`');
    expect(String(authorize['x-redirect-uri-matching'])).toMatch(
      /exact string comparison, except that any port matches on loopback hosts/,
    );
    expect(text.replace(/\s+/g, ' ')).toContain(
      '**as an exact string**, except that any port matches on loopback hosts',
    );
  });
});

describe('the mcp guide', () => {
  const text = guide('mcp');
  const mcp = obj(obj(obj(pub.paths)['/mcp']).post);

  it('lists the tools of x-mcp-tools with their inputs, outputs and REST equivalents', () => {
    const rows = tableRows(section(text, '## Tools')).filter((r) => /^`[a-z_]+`$/.test(r[0] ?? ''));
    const tools = arr(mcp['x-mcp-tools']).map(obj);
    expect(rows.map((r) => unquote(r[0]))).toEqual(tools.map((t) => t.name));
    for (const [i, tool] of tools.entries()) {
      const row = rows[i] ?? [];
      expect(row[2]).toBe(`\`${String(tool.output)}\``);
      expect(row[3]).toBe(`\`${String(tool.equivalent)}\``);
      const required = arr(schema(pub, String(tool.input)).required).map(String);
      for (const name of required) expect(row[1], String(tool.name)).toContain(`"${name}"`);
    }
  });

  it('names the protocol revisions of MCP-Protocol-Version', () => {
    const revisions = arr(obj(parameter(pub, 'McpProtocolVersion').schema).enum).map(String);
    const row = tableRows(text).find((r) => r[0] === 'Protocol revisions');
    expect([...(row?.[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1])).toEqual(revisions);
  });
});

describe('the getting-started guide', () => {
  const text = guide('getting-started');

  it('names the partner scopes of x-scope-definitions', () => {
    const scopes = Object.keys(obj(partner['x-scope-definitions']));
    const sentence = /The scopes are (.*?);/s.exec(text)?.[1] ?? '';
    expect([...sentence.matchAll(/`([a-z]+)`/g)].map((m) => m[1])).toEqual(scopes);
  });

  it('names the order actions of the operator API', () => {
    const actions = arr(obj(parameter(admin, 'OrderActionPath').schema).enum).map(String);
    const sentence = /The actions are (.*?);/s.exec(text)?.[1] ?? '';
    expect([...sentence.matchAll(/`([a-z-]+)`/g)].map((m) => m[1])).toEqual(actions);
  });

  it('mints the credential with a body the operator API accepts', () => {
    const body = /-d '(\{"environment"[^']+)'/.exec(text)?.[1];
    const request = schema(admin, 'CredentialCreateRequest');
    const parsed = JSON.parse(body ?? 'null') as Record<string, unknown>;
    for (const key of arr(request.required).map(String)) expect(parsed).toHaveProperty(key);
    for (const key of Object.keys(parsed)) expect(obj(request.properties)).toHaveProperty(key);
  });
});
