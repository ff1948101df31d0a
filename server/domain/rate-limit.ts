/**
 * Fixed-window rate limiting, the arithmetic only. The store counts each call in its bucket's
 * window atomically (server/store/replay-guard.ts, in SQL, where a window opens with the first
 * call after the previous one ended); the one rate-limit step (server/http/rate-limit.ts) hands
 * that count here and sends what this decides: allowed or not, the remaining quota, the reset,
 * the headers. So a caller's first request always sees the full quota and window
 * (`"search";r=59;t=60`).
 */

export interface RateLimitClass {
  readonly quota: number;
  readonly windowSeconds: number;
  readonly description?: string;
  /** Whose window a call counts in (`per`), where the document says: see the surface's bucketOf. */
  readonly per?: string;
  /**
   * `ceiling-of`: this class is no operation's own but a second window over the calls of the named
   * class that its bucket applies to (the public surface: one user's calls through every client).
   */
  readonly ceilingOf?: string;
}

export interface RateLimitInput {
  readonly limit: number;
  readonly windowSeconds: number;
  /** ms */
  readonly now: number;
  /** Requests already admitted in the stored window. */
  readonly count: number;
  /** ms; undefined when nothing is stored yet. */
  readonly windowStart: number | undefined;
}

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** The window's count after this request (a refused one is not counted) and its start. */
  readonly count: number;
  readonly windowStart: number;
  readonly remaining: number;
  /** Whole seconds until the window resets, 1 to windowSeconds. */
  readonly resetSeconds: number;
  /** Set when refused: whole seconds, at least 1. */
  readonly retryAfterSeconds?: number;
}

export function decideRateLimit(input: RateLimitInput): RateLimitDecision {
  const { limit, windowSeconds, now } = input;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1)
    throw new RangeError('windowSeconds must be a positive integer');
  const windowMs = windowSeconds * 1000;
  const fresh = input.windowStart === undefined || now >= input.windowStart + windowMs;
  const windowStart = fresh ? now : input.windowStart;
  const before = fresh ? 0 : input.count;
  const allowed = before < limit;
  const count = allowed ? before + 1 : before;
  // Clamped both ways: a window stored by an instance whose clock runs ahead would otherwise
  // announce a reset longer than the window, and the last millisecond would round to 0.
  const resetSeconds = Math.min(windowSeconds, Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)));
  const remaining = Math.max(0, limit - count);
  if (allowed) return { allowed, count, windowStart, remaining, resetSeconds };
  // Written out, not the allowed answer spread and extended, a slow path of V8
  // (bench/README.md, "Figures behind design choices"): every refusal of a flood is made here.
  return {
    allowed,
    count,
    windowStart,
    remaining,
    resetSeconds,
    retryAfterSeconds: Math.max(1, resetSeconds),
  };
}

const CLASS_NAME = /^[a-z_]+$/;

/**
 * The RateLimit headers of spec/shared/headers.yaml: the IETF draft pair (`RateLimit-Policy`, `RateLimit`) and the
 * older trio, plus `Retry-After` on a refusal.
 */
export function rateLimitHeaders(
  className: string,
  policy: { limit: number; windowSeconds: number },
  decision: Pick<RateLimitDecision, 'remaining' | 'resetSeconds' | 'retryAfterSeconds'>,
): Record<string, string> {
  // The name is a structured-field string; restricting it keeps quoting trivial and matches the
  // headers' pattern in the spec.
  if (!CLASS_NAME.test(className))
    throw new RangeError(`rate-limit class name must match ${CLASS_NAME}, got ${className}`);
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${className}";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"${className}";r=${decision.remaining};t=${decision.resetSeconds}`,
    'RateLimit-Limit': String(policy.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
  if (decision.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(Math.max(1, Math.ceil(decision.retryAfterSeconds)));
  return headers;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The classes of a parsed partner document's `x-rate-limit-classes`; throws if it is missing or malformed. */
export function rateLimitClasses(spec: unknown): Record<string, RateLimitClass> {
  const classes = isRecord(spec) ? spec['x-rate-limit-classes'] : undefined;
  if (!isRecord(classes)) throw new TypeError('the document has no x-rate-limit-classes object');
  const out: Record<string, RateLimitClass> = {};
  for (const [name, value] of Object.entries(classes)) {
    const quota = isRecord(value) ? value.quota : undefined;
    const windowSeconds = isRecord(value) ? value['window-seconds'] : undefined;
    const description = isRecord(value) ? value.description : undefined;
    const per = isRecord(value) ? value.per : undefined;
    const ceilingOf = isRecord(value) ? value['ceiling-of'] : undefined;
    if (!CLASS_NAME.test(name) || !Number.isSafeInteger(quota) || !Number.isSafeInteger(windowSeconds)) {
      throw new TypeError(`x-rate-limit-classes.${name} needs integer quota and window-seconds`);
    }
    out[name] = {
      quota: quota as number,
      windowSeconds: windowSeconds as number,
      ...(typeof description === 'string' ? { description } : {}),
      ...(typeof per === 'string' ? { per } : {}),
      ...(typeof ceilingOf === 'string' ? { ceilingOf } : {}),
    };
  }
  return out;
}

/**
 * Each class with its name, made once per set of classes (they are read at start-up and never
 * change): every counted request looks its class up, twice on the partner surface.
 */
const namedClasses = new WeakMap<object, Map<string, Readonly<RateLimitClass & { name: string }>>>();

/**
 * The class named `name` (an operation's `x-rate-limit`), or `fallback` for an unknown path; throws for a class the document lacks.
 * Shared and frozen: read it, never change it.
 */
export function rateLimitClassOf(
  classes: Readonly<Record<string, RateLimitClass>>,
  name: string | undefined,
  fallback: string | undefined,
): Readonly<RateLimitClass & { name: string }> {
  const chosen = name ?? fallback;
  if (chosen === undefined) throw new Error('No rate-limit class: the operation declares no x-rate-limit');
  let named = namedClasses.get(classes);
  if (!named) namedClasses.set(classes, (named = new Map()));
  let cls = named.get(chosen);
  if (!cls) {
    const declared = Object.hasOwn(classes, chosen) ? classes[chosen] : undefined;
    if (!declared) throw new Error(`Unknown rate-limit class "${chosen}"`);
    named.set(chosen, (cls = Object.freeze({ ...declared, name: chosen })));
  }
  return cls;
}
