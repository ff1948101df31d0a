#!/usr/bin/env node
// Replays a failure bundle of the Domain Sales conformance kit against any deployment.
//
//   node replay.mjs --base-url https://staging.example.com [--check ID] [--admin-base-url URL] [--verbose]
//
// Reads bundle.json and each failed check's exchanges.har (HAR 1.2) beside this file, sends the
// recorded requests again in order and prints, for each, what differs from the recorded answer.
// Signed partner requests are signed again with a fresh timestamp and nonce (the same skew from
// the server's clock as recorded, and the same nonce where the check reused one), and with the
// same deliberate mistake where the check made one (a wrong query line, a changed body, a flipped
// signature, the key id as the secret). Identifiers the deployment issues (order ids, client ids,
// codes, tokens, cookies, form tokens) are carried from the new answers into later requests.
//
// Credentials, from the environment:
//   SERVICE_KEY_ID / SERVICE_SECRET         stands in for the run's first credential
//   SERVICE_KEY_ID_2 / SERVICE_SECRET_2 ... for the second, third... (a check with two partners)
//   ADMIN_TOKEN                             the operator token: replays the operator calls, and
//                                           mints fresh credentials where the run minted them
//   OAUTH_PASSWORD                          the sandbox sign-in user's password (sign-in forms)
// Exit code: 0 the failure reproduces (every answer as recorded); 1 it does not (some answer
// differs: fixed, or failing another way); 2 cannot replay (arguments, credentials).
//
// Compared: status, content type, the presence of the rate-limit and request-id headers, the
// values of a few headers, a redirect's location, and JSON bodies member by member. Identifiers
// the deployment issued are learned (see correlate) and times skipped; secrets are never
// compared or printed: a member the bundle withheld (${REDACTED}), a secret member (secret,
// access_token…), and any secret from the environment are shown as ${REDACTED} or (withheld).
// Plain Node 20, no dependencies: it runs without the kit installed. Requests go through
// transport.mjs beside it, the kit's own transport, so a stale kept-alive connection is resent by
// the kit's one rule rather than read as a difference.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransport } from './transport.mjs';

const transport = createTransport();

// ---------------------------------------------------------------------------------------------
// The v1 signature (spec/docs/signing.md; checked against spec/vectors/signing.json by the kit's tests)

const UNRESERVED = /^[A-Za-z0-9\-_.~]$/;

/** Percent-encodes one key or value: only A-Z a-z 0-9 - _ . ~ stay literal, the rest is UTF-8 %XX in uppercase. */
export function encodeComponent(text) {
  let out = '';
  for (const ch of text) {
    if (UNRESERVED.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Decodes %XX escapes as UTF-8 (`+` stays a plus); throws on a malformed escape or invalid UTF-8. */
export function decodeComponent(text) {
  const bytes = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new Error(`malformed percent-escape at ${i}`);
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      const ch = String.fromCodePoint(text.codePointAt(i));
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      i += ch.length;
    }
  }
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Uint8Array.from(bytes));
}

const byCodePoint = (a, b) => {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
};

/** The canonical query: split on &, decode, sort by key then value (code points), re-encode strictly. */
export function canonicalQuery(query) {
  const pairs = query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const i = part.indexOf('=');
      return i < 0
        ? [decodeComponent(part), '']
        : [decodeComponent(part.slice(0, i)), decodeComponent(part.slice(i + 1))];
    });
  pairs.sort((a, b) => byCodePoint(a[0], b[0]) || byCodePoint(a[1], b[1]));
  return pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The six signed lines. */
export function canonicalString({ method, path, query, timestamp, nonce, body }) {
  const m = method.toUpperCase();
  const bodyHash = m === 'GET' || m === 'HEAD' ? sha256('') : sha256(Buffer.from(body ?? '', 'utf8'));
  return [m, path, canonicalQuery(query ?? ''), timestamp, nonce, bodyHash].join('\n');
}

export const hmacHex = (key, text) =>
  createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(text, 'utf8')).digest('hex');
const flipLast = (s) => s.replace(/.$/, (c) => (c === '0' ? '1' : '0'));

// ---------------------------------------------------------------------------------------------
// Carrying identifiers from new answers into later requests
//
// Only values shaped like identifiers the deployment issues are learned: a value matching one of
// the contract's id patterns (`^ord_[0-9A-Za-z]{6,40}$`… listed in bundle.json as `idPatterns`,
// read from the bundled documents when the bundle was written), or an opaque token in a member
// that carries one (`…_id`, `…_token`, `…_cursor`: a client id, an access token, a cursor).
// Error codes, statuses, types and messages are never learned: a changed one is a difference.

/** The contract's id shapes when a bundle names none (bundles written before idPatterns). */
export const DEFAULT_ID_PATTERNS = [
  '^ord_[0-9A-Za-z]{6,40}$',
  '^evt_[0-9A-Za-z]{6,40}$',
  '^ptn_[0-9A-Za-z]{6,40}$',
  '^pk_(test|live)_[A-Za-z0-9]{16,64}$',
  '^cs_[0-9A-Za-z]{6,40}$',
  '^stm_[0-9A-Za-z]{6,40}$',
  '^po_[0-9A-Za-z]{6,40}$',
  '^brk_[0-9A-Za-z]{6,40}$',
  '^lnk_[0-9A-Za-z]{6,40}$',
  '^cle_[0-9A-Za-z]{6,40}$',
];

const TOKEN_LIKE = /^[A-Za-z0-9_\-.~+/=:]{6,}$/;
const TIME_LIKE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?$/;
/** Members that carry an issued opaque value (request_id is per answer, not carried). */
const ISSUED_MEMBER = /(^|_)(id|token|cursor)$/;
/** Members whose value is a secret: never compared, never printed. */
export const SECRET_MEMBER = /^(secret|client_secret|password|access_token|refresh_token|id_token)$/;
/** A value the bundle withheld (`${REDACTED}`, `${OAUTH_PASSWORD}`): the replay never compares or prints what stands there now. */
const PLACEHOLDER = /\$\{[A-Z_]+\}/;

let idShapes = DEFAULT_ID_PATTERNS.map((p) => new RegExp(p));

/** Sets the id shapes (the bundle's idPatterns). */
export function useIdPatterns(patterns) {
  idShapes = (patterns?.length ? patterns : DEFAULT_ID_PATTERNS).map((p) => new RegExp(p));
}

/** True when the value has the shape of an id the contract defines. */
export const idShaped = (value) => idShapes.some((re) => re.test(value));

/** True when a recorded and a new value at the same place are one issued identifier in two runs. */
function sameIdentifier(recorded, fresh, member) {
  if (recorded === fresh || PLACEHOLDER.test(recorded)) return false;
  if (idShaped(recorded) && idShaped(fresh)) return true;
  return (
    member !== undefined &&
    member !== 'request_id' &&
    ISSUED_MEMBER.test(member) &&
    TOKEN_LIKE.test(recorded) &&
    TOKEN_LIKE.test(fresh) &&
    !TIME_LIKE.test(recorded)
  );
}

/**
 * Pairs of (recorded, new) values found at the same place in two answers: ids to substitute
 * later. `member` names where a string value sits (its JSON member, query parameter, cookie…).
 */
export function correlate(recorded, fresh, out = new Map(), member = undefined) {
  if (typeof recorded === 'string' && typeof fresh === 'string') {
    if (sameIdentifier(recorded, fresh, member)) out.set(recorded, fresh);
    return out;
  }
  if (Array.isArray(recorded) && Array.isArray(fresh)) {
    for (let i = 0; i < Math.min(recorded.length, fresh.length); i++) correlate(recorded[i], fresh[i], out, member);
  } else if (recorded && fresh && typeof recorded === 'object' && typeof fresh === 'object') {
    for (const key of Object.keys(recorded)) if (key in fresh) correlate(recorded[key], fresh[key], out, key);
  }
  return out;
}

/** Form field values of an HTML page, in order (the sign-in form's hidden csrf_token and friends). */
function inputValues(html) {
  return [...html.matchAll(/<input\b[^>]*>/gi)]
    .map((m) => m[0])
    .filter((tag) => /\btype\s*=\s*"hidden"/i.test(tag))
    .map((tag) => /\bvalue\s*=\s*"([^"]*)"/i.exec(tag)?.[1] ?? '');
}

function locationParams(value) {
  try {
    return Object.fromEntries(new URL(value, 'http://x.invalid').searchParams);
  } catch {
    return {};
  }
}

const cookieValues = (headers) =>
  headers
    .filter((h) => h.name.toLowerCase() === 'set-cookie')
    .map((h) => h.value.split(';')[0]?.split('=').slice(1).join('=') ?? '');

/** Replaces every recorded identifier by its new value (longest first, so prefixes do not clash). */
export function substitute(text, map) {
  if (!text || map.size === 0) return text;
  let out = text;
  for (const [from, to] of [...map].sort((a, b) => b[0].length - a[0].length)) {
    if (from.length >= 6) out = out.split(from).join(to);
    // In a query or form, the identifier may be percent-encoded.
    const encoded = encodeURIComponent(from);
    if (encoded !== from) out = out.split(encoded).join(encodeURIComponent(to));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparing answers

/** Headers whose presence is part of the answer (their values depend on the credential or the moment). */
const PRESENCE_HEADERS = ['ratelimit-policy', 'ratelimit', 'retry-after', 'deprecation', 'sunset', 'x-request-id'];
/** Headers whose value is part of the answer. */
const VALUE_HEADERS = ['idempotent-replayed', 'www-authenticate', 'cache-control', 'allow'];

function headerMap(list) {
  const out = {};
  for (const h of list ?? []) out[h.name.toLowerCase()] = h.value;
  return out;
}

const WITHHELD = '(withheld)';
const shownValue = (value, key, width) =>
  key !== undefined && SECRET_MEMBER.test(key) ? WITHHELD : JSON.stringify(value).slice(0, width);

/**
 * Differences between a recorded JSON value and a new one, skipping times, request ids and
 * learned ids. A member the bundle withheld (`${REDACTED}`) or whose value is a secret is never
 * compared or printed; only its presence counts.
 */
export function jsonDiff(recorded, fresh, map, path = '', out = [], key = undefined) {
  if (out.length >= 12) return out;
  if (key !== undefined && SECRET_MEMBER.test(key)) {
    if (typeof recorded !== typeof fresh) out.push(`${path}: ${typeof recorded} → ${typeof fresh} ${WITHHELD}`);
    return out;
  }
  if (typeof recorded === 'string' && typeof fresh === 'string') {
    if (
      recorded === fresh ||
      PLACEHOLDER.test(recorded) ||
      map.get(recorded) === fresh ||
      substitute(recorded, map) === fresh ||
      (TIME_LIKE.test(recorded) && TIME_LIKE.test(fresh)) ||
      path.endsWith('/request_id')
    )
      return out;
    out.push(`${path || '/'}: ${JSON.stringify(recorded).slice(0, 80)} → ${JSON.stringify(fresh).slice(0, 80)}`);
    return out;
  }
  if (Array.isArray(recorded) && Array.isArray(fresh)) {
    if (recorded.length !== fresh.length) out.push(`${path || '/'}: ${recorded.length} items → ${fresh.length}`);
    for (let i = 0; i < Math.min(recorded.length, fresh.length); i++)
      jsonDiff(recorded[i], fresh[i], map, `${path}/${i}`, out, key);
    return out;
  }
  if (
    recorded &&
    fresh &&
    typeof recorded === 'object' &&
    typeof fresh === 'object' &&
    !Array.isArray(recorded) &&
    !Array.isArray(fresh)
  ) {
    for (const k of new Set([...Object.keys(recorded), ...Object.keys(fresh)])) {
      if (!(k in fresh)) out.push(`${path}/${k}: missing now (was ${shownValue(recorded[k], k, 60)})`);
      else if (!(k in recorded)) out.push(`${path}/${k}: new member ${shownValue(fresh[k], k, 60)}`);
      else jsonDiff(recorded[k], fresh[k], map, `${path}/${k}`, out, k);
    }
    return out;
  }
  if (JSON.stringify(recorded) !== JSON.stringify(fresh))
    out.push(`${path || '/'}: ${JSON.stringify(recorded).slice(0, 80)} → ${JSON.stringify(fresh).slice(0, 80)}`);
  return out;
}

/** Replaces every secret the replay holds by ${REDACTED} (the last guard before anything is printed). */
export function scrub(text, secrets) {
  let out = text;
  for (const secret of [...secrets].sort((x, y) => y.length - x.length))
    if (secret) out = out.split(secret).join('${REDACTED}');
  return out;
}

/** What differs in a redirect: its path, and each query parameter but the issued code. */
function locationDiff(recorded, fresh, map) {
  if (recorded === undefined && fresh === undefined) return [];
  if (recorded === undefined || fresh === undefined)
    return [
      `header location: ${recorded === undefined ? '(absent)' : 'present'} → ${fresh === undefined ? '(absent)' : 'present'}`,
    ];
  const parse = (v) => {
    try {
      return new URL(v, 'http://x.invalid');
    } catch {
      return undefined;
    }
  };
  const [a, b] = [parse(substitute(recorded, map)), parse(fresh)];
  if (!a || !b) return substitute(recorded, map) === fresh ? [] : ['header location differs'];
  const out = [];
  if (a.origin !== b.origin || a.pathname !== b.pathname)
    out.push(`header location: ${a.origin}${a.pathname} → ${b.origin}${b.pathname}`);
  const names = new Set([...a.searchParams.keys(), ...b.searchParams.keys()]);
  for (const name of names) {
    const [x, y] = [a.searchParams.get(name), b.searchParams.get(name)];
    if (name === 'code') {
      if ((x === null) !== (y === null))
        out.push(`header location ?code: ${x === null ? 'absent' : 'present'} → ${y === null ? 'absent' : 'present'}`);
    } else if (x !== y && map.get(x ?? '') !== y)
      out.push(`header location ?${name}: ${JSON.stringify(x)} → ${JSON.stringify(y)}`);
  }
  return out;
}

const parseJson = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export function differences(entry, fresh, map) {
  const out = [];
  const was = entry.response;
  if (was.status !== fresh.status) out.push(`status ${was.status} → ${fresh.status}`);
  const a = headerMap(was.headers);
  const b = fresh.headers;
  const shown = (v) => (v === undefined ? '(absent)' : JSON.stringify(v));
  const media = (v) => (v ?? '').split(';')[0].trim().toLowerCase();
  if (media(a['content-type']) !== media(b['content-type']))
    out.push(`header content-type: ${shown(a['content-type'])} → ${shown(b['content-type'])}`);
  for (const name of PRESENCE_HEADERS)
    if ((a[name] === undefined) !== (b[name] === undefined))
      out.push(`header ${name}: ${shown(a[name])} → ${shown(b[name])}`);
  for (const name of VALUE_HEADERS)
    if ((a[name] === undefined ? undefined : substitute(a[name], map)) !== b[name])
      out.push(`header ${name}: ${shown(a[name])} → ${shown(b[name])}`);
  out.push(...locationDiff(a.location, b.location, map));
  const x = parseJson(was.content?.text ?? '');
  const y = parseJson(fresh.body);
  if (x !== undefined && y !== undefined) out.push(...jsonDiff(x, y, map).map((d) => `body ${d}`));
  else if (x !== undefined || y !== undefined)
    out.push(`body: ${x === undefined ? 'not JSON' : 'JSON'} → ${y === undefined ? 'not JSON' : 'JSON'}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Replaying one check

const HOP = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'accept-encoding']);

function usage(message) {
  console.error(`${message}\n\nnode replay.mjs --base-url URL [--check ID] [--admin-base-url URL] [--verbose]`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--verbose') out.verbose = true;
    else if (a === '--base-url' || a === '--check' || a === '--admin-base-url') {
      if (argv[i + 1] === undefined) usage(`${a} needs a value`);
      out[a.slice(2)] = argv[++i];
    } else usage(`unknown argument ${a}`);
  }
  if (!out['base-url']) usage('--base-url is required');
  out['base-url'] = out['base-url'].replace(/\/+$/, '');
  return out;
}

/** Sends a request and reads the answer (no redirects followed). */
async function send(url, method, headers, body) {
  const res = await transport(url, {
    method,
    headers,
    redirect: 'manual',
    ...(body !== undefined && body !== '' && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
  });
  const out = {};
  res.headers.forEach((v, k) => {
    out[k] = v;
  });
  return { status: res.status, headers: out, setCookies: res.headers.getSetCookie(), body: await res.text() };
}

/** Seconds the target's clock is ahead of this machine's, from a Date header (to the second). */
async function measureOffset(base) {
  const before = Date.now();
  const answer = await send(`${base}/api/partner/v1/availability`, 'GET', {}, undefined);
  const date = Date.parse(answer.headers.date ?? '');
  if (Number.isNaN(date)) return 0;
  return Math.round((date + 500 - (before + Date.now()) / 2) / 1000);
}

export async function replayCheck(check, entries, options, env = process.env, print = console.log) {
  const base = options['base-url'];
  // Secrets the replay holds (from the environment, or issued to it now) never reach its output.
  const secrets = new Set(
    Object.entries(env)
      .filter(([name, value]) => /SECRET|TOKEN|PASSWORD/.test(name) && typeof value === 'string' && value.length >= 6)
      .map(([, value]) => value),
  );
  const withhold = (value, member) => {
    if (typeof value === 'string') {
      if (member !== undefined && SECRET_MEMBER.test(member) && value.length >= 6) secrets.add(value);
    } else if (Array.isArray(value)) for (const v of value) withhold(v, member);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) withhold(v, k);
  };
  const log = (line) => print(scrub(line, secrets));
  const adminBase = (options['admin-base-url'] ?? base).replace(/\/+$/, '');
  const map = new Map();
  // Absolute URLs of the recorded deployment (issuer, resource metadata...) are the new one's.
  if (options.recordedBaseUrl && options.recordedBaseUrl !== base) map.set(options.recordedBaseUrl, base);
  const nonces = new Map();
  const creds = new Map();
  const offset = await measureOffset(base);
  let differing = 0;
  let compared = 0;
  const missing = new Set();

  const credentialFor = (recordedKeyId, meta) => {
    if (creds.has(recordedKeyId)) return creds.get(recordedKeyId);
    if (!meta) return undefined;
    const n = meta.ordinal;
    const keyId = env[n === 1 ? 'SERVICE_KEY_ID' : `SERVICE_KEY_ID_${n}`];
    const secret = env[n === 1 ? 'SERVICE_SECRET' : `SERVICE_SECRET_${n}`];
    if (keyId && secret) {
      const c = { keyId, secret };
      creds.set(recordedKeyId, c);
      map.set(recordedKeyId, keyId);
      return c;
    }
    missing.add(
      `${n === 1 ? 'SERVICE_KEY_ID/SERVICE_SECRET' : `SERVICE_KEY_ID_${n}/SERVICE_SECRET_${n}`} (credential ${n}${meta.scopes ? `, scopes ${meta.scopes.join(' ')}` : ''}) or ADMIN_TOKEN`,
    );
    return undefined;
  };

  for (const [index, entry] of entries.entries()) {
    const c = entry._conformance ?? {};
    const recordedUrl = new URL(entry.request.url);
    const origin = c.operator ? adminBase : base;
    if (c.operator && !env.ADMIN_TOKEN) {
      // A credential the run minted is stood in for by SERVICE_KEY_ID(_n); other operator calls are missed.
      const mint = /\/credentials$/.test(recordedUrl.pathname);
      if (!mint) missing.add('ADMIN_TOKEN (operator calls)');
      log(
        `  #${index + 1} ${entry.request.method} ${recordedUrl.pathname}: not sent (${mint ? 'the credential it minted comes from SERVICE_KEY_ID…' : 'needs ADMIN_TOKEN'})`,
      );
      continue;
    }
    const target = substitute(`${recordedUrl.pathname}${recordedUrl.search}`, map);
    const [path, query = ''] = [
      target.split('?')[0],
      target.includes('?') ? target.slice(target.indexOf('?') + 1) : '',
    ];
    let body = substitute(entry.request.postData?.text ?? '', map);
    if (env.OAUTH_PASSWORD) body = body.split('${OAUTH_PASSWORD}').join(encodeURIComponent(env.OAUTH_PASSWORD));
    const headers = {};
    for (const h of entry.request.headers) {
      const name = h.name.toLowerCase();
      if (HOP.has(name)) continue;
      headers[name] =
        name === 'authorization' && h.value.includes('${ADMIN_TOKEN}')
          ? `Bearer ${env.ADMIN_TOKEN}`
          : substitute(h.value, map);
    }
    // Signed partner requests: a fresh timestamp at the recorded skew, fresh nonces (the same where one was reused), signed again.
    const keyId = headers['x-service-key-id'];
    if (keyId !== undefined) {
      const recordedKey = entry.request.headers.find((h) => h.name.toLowerCase() === 'x-service-key-id')?.value;
      const meta = c.credential;
      const cred = recordedKey ? credentialFor(recordedKey, meta) : undefined;
      if (cred) headers['x-service-key-id'] = cred.keyId;
      const ts = headers['x-service-timestamp'];
      const recordedSecond = Math.floor((Date.parse(entry.startedDateTime) + (c.clockOffsetMs ?? 0)) / 1000);
      const nowSecond = Math.floor(Date.now() / 1000) + offset;
      if (ts !== undefined) {
        if (/^\d{1,10}$/.test(ts) && Math.abs(Number(ts) - recordedSecond) < 1_000_000)
          headers['x-service-timestamp'] = String(nowSecond + Number(ts) - recordedSecond);
        else if (ts.includes(String(recordedSecond)))
          headers['x-service-timestamp'] = ts.split(String(recordedSecond)).join(String(nowSecond));
      }
      const nonce = headers['x-service-nonce'];
      if (nonce !== undefined) {
        if (!nonces.has(nonce))
          nonces.set(
            nonce,
            `${randomUUID()}${nonce.length > 36 ? nonce.slice(36) : ''}`.slice(0, Math.max(nonce.length, 36)),
          );
        headers['x-service-nonce'] = nonces.get(nonce);
      }
      const s = c.signing;
      if (s && cred && headers['x-service-timestamp'] !== undefined && headers['x-service-nonce'] !== undefined) {
        let canonical;
        if (s.matchesRequest) {
          canonical = canonicalString({
            method: entry.request.method,
            path,
            query,
            timestamp: headers['x-service-timestamp'],
            nonce: headers['x-service-nonce'],
            body,
          });
        } else {
          const lines = s.canonical.split('\n');
          lines[1] = substitute(lines[1], map);
          lines[2] = substitute(lines[2], map);
          lines[3] = headers['x-service-timestamp'];
          lines[4] = headers['x-service-nonce'];
          canonical = lines.join('\n');
        }
        const key = s.key === 'key-id' ? cred.keyId : s.key === 'secret' ? cred.secret : 'not-the-secret';
        const computed = `v1=${hmacHex(key, canonical)}`;
        if (s.header === 'computed') headers['x-service-signature'] = computed;
        else if (s.header === 'flipped') headers['x-service-signature'] = flipLast(computed);
      }
    }
    const fresh = await send(`${origin}${target}`, entry.request.method, headers, body);
    // Learn the new identifiers: JSON members, the redirect's code, cookies, hidden form fields, the MCP session.
    const was = parseJson(entry.response.content?.text ?? '');
    const now = parseJson(fresh.body);
    if (was !== undefined && now !== undefined) {
      correlate(was, now, map);
      withhold(now);
    }
    const recordedHeaders = headerMap(entry.response.headers);
    const loc = recordedHeaders.location;
    if (loc && fresh.headers.location) {
      const [a, b] = [locationParams(loc), locationParams(fresh.headers.location)];
      // The authorization code is issued; state, iss and error are not (a changed error is a difference).
      if (a.code !== undefined && b.code !== undefined) correlate(a.code, b.code, map, 'code_token');
      for (const key of Object.keys(a)) if (key !== 'code' && key in b) correlate(a[key], b[key], map);
    }
    correlate(
      cookieValues(entry.response.headers),
      fresh.setCookies.map((v) => v.split(';')[0]?.split('=').slice(1).join('=') ?? ''),
      map,
      'cookie_token',
    );
    if (/html/.test(recordedHeaders['content-type'] ?? ''))
      correlate(inputValues(entry.response.content?.text ?? ''), inputValues(fresh.body), map, 'form_token');
    if (recordedHeaders['mcp-session-id'] && fresh.headers['mcp-session-id'])
      correlate(recordedHeaders['mcp-session-id'], fresh.headers['mcp-session-id'], map, 'session_id');
    // A credential minted by the operator API in the recording stands in for the one minted now.
    if (c.operator && /\/credentials$/.test(recordedUrl.pathname) && was?.key_id && now?.key_id && now?.secret) {
      creds.set(was.key_id, { keyId: now.key_id, secret: now.secret });
      map.set(was.key_id, now.key_id);
    }
    const diffs = differences(entry, fresh, map);
    const own = !c.context;
    if (own) compared++;
    if (own && diffs.length > 0) differing++;
    const line = `  #${index + 1}${c.context ? ' (setup)' : ''} ${entry.request.method} ${path}: recorded ${entry.response.status}, now ${fresh.status}`;
    if (diffs.length === 0) {
      if (options.verbose || own) log(`${line}, as recorded`);
    } else if (own || options.verbose) {
      log(`${line}\n${diffs.map((d) => `      ${d}`).join('\n')}`);
    }
  }
  const verdict =
    missing.size > 0
      ? `cannot replay every request (missing: ${[...missing].join('; ')})`
      : differing === 0
        ? 'reproduces: every answer as recorded'
        : 'fixed, or failing another way: the recorded failure does not reproduce (rerun the check to see which)';
  log(`${check.id}: ${differing} of ${compared} answers differ from the recording: ${verdict}`);
  return { differing, compared, missing: [...missing] };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const here = dirname(fileURLToPath(import.meta.url));
  const bundle = JSON.parse(readFileSync(join(here, 'bundle.json'), 'utf8'));
  const checks = bundle.checks.filter((c) => !options.check || c.id === options.check);
  if (checks.length === 0)
    usage(`no failed check ${options.check} in this bundle (it has: ${bundle.checks.map((c) => c.id).join(', ')})`);
  useIdPatterns(bundle.idPatterns);
  let differing = 0;
  let missing = false;
  for (const check of checks) {
    console.log(
      `\n${check.id}: ${check.title}\n  recorded against ${bundle.baseUrl} (seed ${bundle.seed}); replaying against ${options['base-url']}`,
    );
    if (check.counterexample) console.log(`  counterexample: ${check.counterexample}`);
    const har = JSON.parse(readFileSync(join(here, check.dir, 'exchanges.har'), 'utf8'));
    const result = await replayCheck(check, har.log.entries, { ...options, recordedBaseUrl: bundle.baseUrl });
    differing += result.differing;
    missing ||= result.missing.length > 0;
  }
  const code = missing ? 2 : differing > 0 ? 1 : 0;
  console.log(
    `\n${['reproduces: every answer as recorded', 'fixed, or failing another way: some answer differs from the recording', 'cannot replay: see what is missing above'][code]} (exit ${code})`,
  );
  process.exit(code);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(2);
  });
}
