// Exchanges as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the format browsers'
// developer tools, proxies and HTTP tools import. What the replay needs beyond HAR rides in the
// `_conformance` member of each entry (custom fields start with an underscore, as HAR allows):
// the check, how a signed request was signed, which of the run's credentials it used.
import type { Exchange, SigningRecord } from '../http.ts';

export interface HarEntryExtra {
  family: string;
  checkId: string;
  /** Sent before the check by the same family or to set up its credentials (not compared in detail on replay). */
  context?: boolean;
  operator?: boolean;
  deliberate?: boolean;
  signing?: SigningRecord;
  /** Which of the check's credentials signed it (1, 2...: SERVICE_KEY_ID, SERVICE_KEY_ID_2...) and its scopes. */
  credential?: { ordinal: number; scopes?: string[] };
  /** The server's clock minus the suite's when it was sent (ms), to replay the same skew. */
  clockOffsetMs: number;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: Array<{ name: string; value: string }>;
    queryString: Array<{ name: string; value: string }>;
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: Array<{ name: string; value: string }>;
    content: { size: number; mimeType: string; text: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _conformance: HarEntryExtra;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: never[];
    entries: HarEntry[];
    comment?: string;
  };
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

function queryOf(url: string): Array<{ name: string; value: string }> {
  const i = url.indexOf('?');
  if (i < 0) return [];
  return url
    .slice(i + 1)
    .split('&')
    .filter(Boolean)
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0
        ? { name: decode(part), value: '' }
        : { name: decode(part.slice(0, eq)), value: decode(part.slice(eq + 1)) };
    });
}

/** Secrets a bundle must not carry: a minted credential's secret, a sign-in password. Replays fill them from the environment. */
export function redactedRequestBody(e: Exchange): string {
  const type = Object.entries(e.requestHeaders).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (/x-www-form-urlencoded/.test(type))
    return e.requestBody.replace(/(^|&)password=[^&]*/g, '$1password=${OAUTH_PASSWORD}');
  return e.requestBody;
}

export function redactedResponseBody(e: Exchange): string {
  if (!e.operator) return e.responseBody;
  return e.responseBody.replace(/("secret"\s*:\s*)"[^"]*"/g, '$1"${REDACTED}"');
}

export function toHarEntry(e: Exchange, extra: HarEntryExtra): HarEntry {
  const requestType = Object.entries(e.requestHeaders).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const responseType = e.responseHeaders['content-type'] ?? '';
  const requestBody = redactedRequestBody(e);
  const responseBody = redactedResponseBody(e);
  return {
    startedDateTime: new Date(e.startedAt).toISOString(),
    time: e.ms,
    request: {
      method: e.method,
      url: e.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(e.requestHeaders).map(([name, value]) => ({ name, value })),
      queryString: queryOf(e.url),
      ...(e.requestBody !== ''
        ? { postData: { mimeType: requestType ?? 'application/octet-stream', text: requestBody } }
        : {}),
      headersSize: -1,
      bodySize: Buffer.byteLength(requestBody),
    },
    response: {
      status: e.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [
        ...Object.entries(e.responseHeaders)
          .filter(([name]) => name !== 'set-cookie')
          .map(([name, value]) => ({ name, value })),
        ...(e.setCookies ?? []).map((value) => ({ name: 'set-cookie', value })),
      ],
      content: { size: Buffer.byteLength(responseBody), mimeType: responseType, text: responseBody },
      redirectURL: e.responseHeaders.location ?? '',
      headersSize: -1,
      bodySize: Buffer.byteLength(responseBody),
    },
    cache: {},
    timings: { send: 0, wait: e.ms, receive: 0 },
    _conformance: extra,
  };
}

export function har(entries: HarEntry[], comment?: string): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: 'domain-sales-conformance', version: '0.2.0' },
      pages: [],
      entries,
      ...(comment ? { comment } : {}),
    },
  };
}
