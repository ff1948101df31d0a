// The breaking-change gate's rules for the contract's own `x-` extensions.
//
// `redocly diff` does not look inside `x-` values, yet many per-operation promises live there:
// the scopes a credential needs (`x-scopes`), the rate-limit class, the idempotency and signing
// rules, the body limits, CORS, the error codes of each status. A change there can make a
// conforming client start failing (a new required scope answers 403 to every credential without
// it), so the gate compares every `x-` value of the two documents itself and rates each change
// with the rule of its extension below.
//
// A rule is read from the client's side: what a client sends must stay accepted and what it was
// promised must stay true. So, by default:
//   - a number is a limit the client lives within: lowering it breaks, raising it is compatible;
//   - a list offers values (codes, kinds, methods, headers): removing a value breaks, adding one
//     is compatible;
//   - a token (a string without spaces: a header name, an algorithm, a policy) is exact: any
//     change breaks;
//   - prose (a string with spaces) states a rule in words: a change is listed for review and does
//     not fail the gate (no tool can tell a rewording from a new rule; a reviewer can, and a rule
//     that matters has a token or a number beside it); a stated rule that disappears breaks;
//   - a boolean is exact: any change breaks.
// An extension overrides these where its meaning differs (`x-scopes` are required, so adding one
// breaks; a time window is a limit read the other way round). An extension the table does not
// know is rated breaking on any change, so a new extension is classified before it ships
// (test/contract/gate-cases.test.ts checks that every extension in the documents is in the table).
import { isDeepStrictEqual } from 'node:util';

type Json = unknown;
type Doc = Record<string, unknown>;

export type Verdict = 'breaking' | 'compatible' | 'review';

export interface ExtensionChange {
  /** JSON pointer of the extension (`#/paths/~1api~1x/get/x-scopes`). */
  pointer: string;
  extension: string;
  /** Where inside the extension's value (`timestamp-skew-seconds`, `public/quota`). */
  inner: string;
  verdict: Verdict;
  message: string;
}

type NumberRule = 'lower-breaks' | 'higher-breaks' | 'any-breaks' | 'compatible';
type ListRule = 'removal-breaks' | 'addition-breaks' | 'ordered' | 'compatible';

interface Rule {
  /** Every change of the value (or member) gets this verdict. */
  verdict?: Verdict;
  numbers?: NumberRule;
  lists?: ListRule;
  /** Exceptions for members inside the value, by their inner path (`a/b`; `*` matches one step). */
  members?: Record<string, Omit<Rule, 'members'>>;
  /** A rule of its own, for values that need the documents around them. */
  custom?: (
    before: Json,
    after: Json,
    ctx: { base: Doc; revision: Doc },
  ) => Array<{ verdict: Verdict; message: string }>;
  /** Lists of objects are matched by this member (e.g. `name`) instead of as whole values. */
  key?: string;
  /**
   * The extension newly stated where its holder already was (default `review`: a rule written
   * down can be new or can describe what was always done; only a reviewer can tell). Breaking
   * for the extensions whose every statement restricts what a client may send.
   */
  added?: Verdict;
}

const ordered: Rule = { lists: 'ordered' };
const offered: Rule = {}; // the defaults: numbers are limits, lists offer values
const exact: Rule = { numbers: 'any-breaks', lists: 'ordered' };
const notAPromise: Rule = { verdict: 'compatible' };

/** The quota per second of a rate-limit class, or undefined for `none` / an unknown class. */
function rateOf(doc: Doc, cls: Json): { quota: number; perSecond: number } | undefined {
  const classes = doc['x-rate-limit-classes'] as
    Record<string, { quota?: number; 'window-seconds'?: number }> | undefined;
  const c = typeof cls === 'string' ? classes?.[cls] : undefined;
  if (!c || typeof c.quota !== 'number' || typeof c['window-seconds'] !== 'number') return undefined;
  return { quota: c.quota, perSecond: c.quota / c['window-seconds'] };
}

const CORS_RANK: Record<string, number> = { 'allowed-origins': 1, 'any-origin': 2 };

/** Every extension of the three documents, with its rule. */
export const EXTENSION_RULES: Record<string, Rule> = {
  // Per operation
  'x-scopes': { lists: 'addition-breaks', added: 'breaking' }, // every listed scope is required
  'x-rate-limit': {
    custom: (before, after, { base, revision }) => {
      const was = rateOf(base, before);
      const now = rateOf(revision, after);
      if (!now)
        return [{ verdict: 'compatible', message: `rate limit ${String(before)} → ${String(after)} (no limit)` }];
      if (!was || now.quota < was.quota || now.perSecond < was.perSecond)
        return [
          {
            verdict: 'breaking',
            message: `rate-limit class ${String(before)} → ${String(after)}: a lower budget (${now.quota} per ${now.quota / now.perSecond} s${was ? `, was ${was.quota} per ${was.quota / was.perSecond} s` : ', was unlimited'})`,
          },
        ];
      return [
        { verdict: 'compatible', message: `rate-limit class ${String(before)} → ${String(after)}: no lower budget` },
      ];
    },
  },
  'x-idempotency': {
    added: 'breaking',
    members: {
      'key-length': { lists: 'ordered' }, // [min, max]: read by the range rule below
      stored: ordered,
      'not-stored': ordered,
    },
  },
  'x-quote-validity-seconds': offered,
  // How long a partner holds a domain: a shorter cap is less than promised (the default for
  // numbers), a longer cool-down keeps a partner out longer, and extension on or off is exact.
  'x-quote-reservation': { members: { 'cooldown-seconds': { numbers: 'higher-breaks' } } },
  'x-session-validity-seconds': offered,
  'x-attribution-window-days': offered,
  'x-url-rules': offered,
  'x-cors': {
    custom: (before, after) => {
      if (typeof before === 'object' || typeof after === 'object') return []; // the document-level policy table: members compared below
      const was = CORS_RANK[String(before)] ?? 0;
      const now = CORS_RANK[String(after)] ?? 0;
      return [
        {
          verdict: now < was ? 'breaking' : 'compatible',
          message: `CORS ${String(before ?? 'none')} → ${String(after ?? 'none')}${now < was ? ': browsers allowed before are now refused' : ''}`,
        },
      ];
    },
  },
  'x-eov-allow-unknown-query-parameters': {
    custom: (before, after) => [
      before === true && after !== true
        ? { verdict: 'breaking', message: 'unknown query parameters are now refused with 400' }
        : { verdict: 'compatible', message: 'unknown query parameters are now accepted' },
    ],
  },
  'x-error-format': exact,
  'x-form-action': offered,
  'x-oauth-errors': offered,
  'x-pkce': { added: 'breaking' },
  'x-redirect-uri-matching': offered,
  'x-signin-throttle': offered,
  'x-token-lifetimes': offered,
  'x-token-rules': offered,
  'x-mcp-protocol-versions': offered,
  'x-mcp-tools': { key: 'name', lists: 'removal-breaks' },
  'x-transitions': offered, // a move that disappears breaks who makes it; a new move is compatible
  // Per schema or response
  'x-error-codes': offered,
  'x-status-of-code': { numbers: 'any-breaks' },
  'x-delivered': offered,
  'x-failure-classes': offered, // a class removed breaks who matches on it; a new one is reviewed
  'x-history-only': offered,
  'x-final-states': ordered,
  'x-url-rule': offered,
  'x-balance-effect': exact,
  'x-prefix-by-environment': exact,
  // Per document
  'x-signing': {
    added: 'breaking',
    members: {
      'canonical-string': ordered,
      'check-order': ordered,
    },
  },
  'x-webhook-delivery': {
    // Receivers must answer within timeout-seconds (lower breaks) and may rely on the headers and
    // kinds listed; the retry timing is the service's own business.
    members: {
      'retry-schedule-seconds': { verdict: 'compatible' },
      'retry-late-factor': { verdict: 'compatible' },
    },
  },
  'x-rate-limit-classes': {
    members: {
      '*/window-seconds': { numbers: 'higher-breaks' }, // the same quota over a longer window is less
    },
  },
  'x-body-limits': offered,
  'x-unknown-query-parameters': exact,
  'x-head': exact, // HEAD answered as GET: a change stops monitors and caches that use it
  'x-request-target': offered,
  'x-single-headers': { members: { headers: { lists: 'addition-breaks' } } }, // one more header refused when repeated
  'x-trusted-hosts': offered,
  'x-protocol-refusals': offered, // each refusal's status and code are tokens: another one breaks who branches on it
  'x-security-headers': notAPromise, // headers the server adds for browsers; no client request fails
  'x-check-order': ordered,
  'x-scope-definitions': offered,
  'x-commission-defaults': notAPromise, // business terms, not a protocol rule
  // Not promises at all
  'x-accepted-breaking-change': notAPromise,
  'x-internal': notAPromise,
};

const isProse = (v: Json): v is string => typeof v === 'string' && /\s/.test(v.trim());
const show = (v: Json) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 80));
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function memberRule(rule: Rule, inner: string[]): Omit<Rule, 'members'> | undefined {
  for (const [pattern, r] of Object.entries(rule.members ?? {})) {
    const parts = pattern.split('/');
    if (parts.length > inner.length) continue;
    if (parts.every((p, i) => p === '*' || p === inner[i])) return r;
  }
  return undefined;
}

/** Rates one leaf change inside an extension's value. */
function rateLeaf(
  rule: Rule,
  inner: string[],
  before: Json,
  after: Json,
): Array<{ verdict: Verdict; message: string }> {
  const local = { ...rule, ...memberRule(rule, inner) };
  const at = inner.length > 0 ? `${inner.join('/')}: ` : '';
  if (local.verdict) return [{ verdict: local.verdict, message: `${at}${show(before)} → ${show(after)}` }];
  if (typeof before === 'number' || typeof after === 'number') {
    // A status code is a token, not a limit.
    const numbers = inner.at(-1) === 'status' ? 'any-breaks' : (local.numbers ?? 'lower-breaks');
    const b = typeof before === 'number' ? before : undefined;
    const a = typeof after === 'number' ? after : undefined;
    const breaks =
      numbers === 'any-breaks'
        ? true
        : numbers === 'compatible'
          ? false
          : numbers === 'lower-breaks'
            ? a !== undefined && (b === undefined || a < b) // a new limit, or a lower one
            : a !== undefined && b !== undefined && a > b;
    return [{ verdict: breaks ? 'breaking' : 'compatible', message: `${at}${show(before)} → ${show(after)}` }];
  }
  if (Array.isArray(before) || Array.isArray(after)) return rateList(local, inner, before, after);
  // A rule stated in words that disappears is a lost promise; one reworded or added is for review.
  if (before !== undefined && after === undefined) return [{ verdict: 'breaking', message: `${at}removed` }];
  if (isProse(before) || isProse(after))
    return [{ verdict: 'review', message: `${at}the rule's wording changed (review it)` }];
  // A token or a flag changed, appeared (a new rule) or disappeared (a lost promise).
  return [{ verdict: 'breaking', message: `${at}${show(before)} → ${show(after)}` }];
}

function rateList(
  rule: Rule,
  inner: string[],
  before: Json,
  after: Json,
): Array<{ verdict: Verdict; message: string }> {
  const at = inner.length > 0 ? `${inner.join('/')}: ` : '';
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  const lists = rule.lists ?? 'removal-breaks';
  if (inner.at(-1) === 'key-length' && b.length === 2 && a.length === 2) {
    const [bMin, bMax] = b as number[];
    const [aMin, aMax] = a as number[];
    const breaks = (aMin ?? 0) > (bMin ?? 0) || (aMax ?? Infinity) < (bMax ?? Infinity);
    return [{ verdict: breaks ? 'breaking' : 'compatible', message: `${at}range ${show(b)} → ${show(a)}` }];
  }
  if (lists === 'ordered' || lists === 'compatible') {
    const verdict: Verdict = lists === 'ordered' ? 'breaking' : 'compatible';
    return [{ verdict, message: `${at}${show(before)} → ${show(after)}` }];
  }
  const id = (v: Json) =>
    rule.key && v && typeof v === 'object' ? JSON.stringify((v as Record<string, Json>)[rule.key]) : JSON.stringify(v);
  const afterIds = new Map(a.map((v) => [id(v), v]));
  const beforeIds = new Map(b.map((v) => [id(v), v]));
  const removed = [...beforeIds.keys()].filter((k) => !afterIds.has(k));
  const added = [...afterIds.keys()].filter((k) => !beforeIds.has(k));
  const changed = [...beforeIds.keys()].filter(
    (k) => afterIds.has(k) && !isDeepStrictEqual(beforeIds.get(k), afterIds.get(k)),
  );
  const out: Array<{ verdict: Verdict; message: string }> = [];
  if (removed.length > 0)
    out.push({
      verdict: lists === 'removal-breaks' ? 'breaking' : 'compatible',
      message: `${at}lost ${removed.join(', ')}`,
    });
  if (added.length > 0)
    out.push({
      verdict: lists === 'addition-breaks' ? 'breaking' : 'compatible',
      message: `${at}gained ${added.join(', ')}`,
    });
  if (changed.length > 0) out.push({ verdict: 'breaking', message: `${at}changed ${changed.join(', ')}` });
  return out;
}

/** Walks two values of one extension and rates every difference. */
function rateValue(
  rule: Rule,
  inner: string[],
  before: Json,
  after: Json,
  ctx: { base: Doc; revision: Doc },
): Array<{ inner: string; verdict: Verdict; message: string }> {
  if (isDeepStrictEqual(before, after)) return [];
  const isObj = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (inner.length === 0 && rule.custom) {
    const rated = rule.custom(before, after, ctx);
    if (rated.length > 0) return rated.map((r) => ({ inner: '', ...r }));
  }
  if (isObj(before) && isObj(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((k) => rateValue(rule, [...inner, k], before[k], after[k], ctx));
  }
  return rateLeaf(rule, inner, before, after).map((r) => ({ inner: inner.join('/'), ...r }));
}

/** Every `x-` extension of a document by JSON pointer (values are not searched for more). */
export function extensionsOf(doc: Json): Map<string, { name: string; value: Json }> {
  const out = new Map<string, { name: string; value: Json }>();
  const walk = (node: Json, pointer: string) => {
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${pointer}/${i}`));
    else if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) {
        const at = `${pointer}/${escape(k)}`;
        if (k.startsWith('x-')) out.set(at, { name: k, value: v });
        else walk(v, at);
      }
  };
  walk(doc, '#');
  return out;
}

/** Whether the object holding the value at `pointer` exists in `doc`. */
function holderExists(doc: Doc, pointer: string): boolean {
  const parts = pointer.replace(/^#\//, '').split('/').slice(0, -1);
  let node: Json = doc;
  for (const part of parts) {
    if (!node || typeof node !== 'object') return false;
    node = (node as Record<string, Json>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node !== undefined && node !== null && typeof node === 'object';
}

/** The changes of every `x-` extension between two documents, each rated by its extension's rule. */
export function extensionChanges(base: Doc, revision: Doc): ExtensionChange[] {
  const was = extensionsOf(base);
  const now = extensionsOf(revision);
  const out: ExtensionChange[] = [];
  for (const pointer of new Set([...was.keys(), ...now.keys()])) {
    const b = was.get(pointer);
    const a = now.get(pointer);
    // An operation (or schema) added or removed whole is redocly's to rate; its extensions come and go with it.
    if (!b && !holderExists(base, pointer)) continue;
    if (!a && !holderExists(revision, pointer)) continue;
    const extension = (b ?? a)!.name;
    const rule = EXTENSION_RULES[extension];
    if (rule && !b && !rule.custom) {
      const verdict = rule.added ?? 'review';
      out.push({ pointer, extension, inner: '', verdict, message: `\`${extension}\` newly stated: ${show(a?.value)}` });
      continue;
    }
    if (!rule) {
      if (!isDeepStrictEqual(b?.value, a?.value))
        out.push({
          pointer,
          extension,
          inner: '',
          verdict: 'breaking',
          message: `\`${extension}\` changed, and the gate has no rule for it (scripts/contract-diff-extensions.ts)`,
        });
      continue;
    }
    for (const r of rateValue(rule, [], b?.value, a?.value, { base, revision }))
      out.push({ pointer, extension, inner: r.inner, verdict: r.verdict, message: `\`${extension}\` ${r.message}` });
  }
  return out;
}
