// The scopes this authorization server grants, and the parsing every endpoint shares.

export const SCOPES = ['pricing:read', 'domains:manage'] as const;
export type Scope = (typeof SCOPES)[number];

/** The longest `scope` string accepted anywhere (the contract's maxLength; duplicates make longer strings possible). */
export const MAX_SCOPE_LENGTH = 200;

/** What an authorization request without `scope` asks for, and what a client registers by default. */
export const DEFAULT_SCOPE: Scope = 'pricing:read';

/** What the consent page tells the user each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'pricing:read': 'See real marketplace prices in domain search',
  'domains:manage': 'Manage the domains you own (renewal, nameservers, auto-renew)',
};

const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

export type ParsedScope = { ok: true; scopes: Scope[] } | { ok: false; unknown: string };

/**
 * Parses a space-delimited scope string (RFC 6749 §3.3): duplicates collapse, the order is
 * the canonical one of SCOPES so stored and echoed values compare as strings.
 */
export function parseScope(value: string): ParsedScope {
  const parts = value.split(' ');
  if (parts.some((p) => p === '')) return { ok: false, unknown: value };
  for (const p of parts) if (!isScope(p)) return { ok: false, unknown: p };
  return { ok: true, scopes: SCOPES.filter((s) => parts.includes(s)) };
}

export const formatScope = (scopes: readonly Scope[]) => SCOPES.filter((s) => scopes.includes(s)).join(' ');

/** True when every scope of `asked` is in `allowed`. */
export const isSubset = (asked: readonly Scope[], allowed: readonly Scope[]) => asked.every((s) => allowed.includes(s));
