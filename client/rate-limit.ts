// Reads the rate-limit fields every answer carries (spec/shared/headers.yaml): the IETF draft's
// `RateLimit-Policy: "search";q=60;w=60` and `RateLimit: "search";r=59;t=60`, falling back
// to the older `RateLimit-Limit/Remaining/Reset` trio.

export interface RateLimitState {
  /** Policy name, e.g. `search` or `public`. */
  policy: string | undefined;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Window length in seconds, when the policy states it. */
  windowSeconds: number | undefined;
}

/** Parses one structured-field item: `"name";k=v;k=v` (RFC 9651 string item with integer parameters). */
function parseItem(value: string | null): { name: string; params: Record<string, number> } | undefined {
  if (!value) return undefined;
  const first = value.split(',')[0]?.trim() ?? '';
  const match = /^"([^"]*)"((?:\s*;\s*[a-z][a-z0-9_.*-]*=\d+)*)$/.exec(first);
  if (!match) return undefined;
  const params: Record<string, number> = {};
  for (const part of (match[2] ?? '').split(';').slice(1)) {
    const [k, v] = part.split('=');
    if (k && v) params[k.trim()] = Number(v);
  }
  return { name: match[1] ?? '', params };
}

const int = (v: string | null) => (v !== null && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined);

export function parseRateLimit(headers: Headers): RateLimitState | undefined {
  const policy = parseItem(headers.get('ratelimit-policy'));
  const current = parseItem(headers.get('ratelimit'));
  const limit = policy?.params.q ?? int(headers.get('ratelimit-limit'));
  const remaining = current?.params.r ?? int(headers.get('ratelimit-remaining'));
  const resetSeconds = current?.params.t ?? int(headers.get('ratelimit-reset'));
  if (limit === undefined || remaining === undefined || resetSeconds === undefined) return undefined;
  return { policy: policy?.name ?? current?.name, limit, remaining, resetSeconds, windowSeconds: policy?.params.w };
}
