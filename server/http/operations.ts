// The per-operation facts of a bundled document (scopes, rate-limit class, deprecation), read at
// start-up so the pipeline can act on them before the validator runs. Never copied into code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface OperationFacts {
  operationId: string;
  method: string;
  /** The path template as written in the spec, e.g. `/api/partner/v1/orders/{public_id}`. */
  path: string;
  scopes: string[];
  rateLimit: string | undefined;
  deprecated: boolean;
  /** `x-deprecation` of a deprecated operation: when it was deprecated, its sunset, its notice. */
  deprecation?: Deprecation;
}

export interface Deprecation {
  /** ms */
  at: number;
  /** ms */
  sunset: number;
  link: string;
}

export type OperationMatch = { kind: 'found'; operation: OperationFacts; params: Record<string, string> } | { kind: 'method-not-allowed'; allowed: string[] } | { kind: 'not-found' };

type Document = {
  paths?: Record<string, Record<string, { operationId?: string; 'x-scopes'?: string[]; 'x-rate-limit'?: string; deprecated?: boolean; 'x-deprecation'?: unknown }>>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function loadDocument(generatedDir: string, api: 'partner' | 'public' | 'admin'): Record<string, unknown> {
  return JSON.parse(readFileSync(join(generatedDir, `${api}.openapi.json`), 'utf8')) as Record<string, unknown>;
}

export class OperationTable {
  private readonly routes: Array<{ regex: RegExp; names: string[]; byMethod: Map<string, OperationFacts> }> = [];

  constructor(document: Record<string, unknown>) {
    const paths = (document as Document).paths ?? {};
    // Literal segments before templated ones, so /brokerage/eligibility wins over /brokerage/{case_id}.
    const ordered = Object.keys(paths).sort((a, b) => templateRank(a) - templateRank(b));
    for (const path of ordered) {
      const names: string[] = [];
      const pattern = path
        .split('/')
        .map((segment) => {
          const m = /^\{(.+)\}$/.exec(segment);
          if (!m) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1] as string);
          return '([^/]+)';
        })
        .join('/');
      const byMethod = new Map<string, OperationFacts>();
      for (const [method, op] of Object.entries(paths[path] ?? {})) {
        if (!METHODS.includes(method)) continue;
        byMethod.set(method.toUpperCase(), {
          operationId: op.operationId ?? `${method} ${path}`,
          method: method.toUpperCase(),
          path,
          scopes: op['x-scopes'] ?? [],
          rateLimit: op['x-rate-limit'],
          deprecated: op.deprecated === true,
          ...(op.deprecated === true ? { deprecation: deprecationOf(op['x-deprecation'], `${method.toUpperCase()} ${path}`) } : {}),
        });
      }
      this.routes.push({ regex: new RegExp(`^${pattern}$`), names, byMethod });
    }
  }

  /** Matches a raw request path (percent-escapes untouched) and method. */
  match(method: string, rawPath: string): OperationMatch {
    for (const route of this.routes) {
      const m = route.regex.exec(rawPath);
      if (!m) continue;
      const operation = route.byMethod.get(method.toUpperCase());
      if (!operation) return { kind: 'method-not-allowed', allowed: [...route.byMethod.keys()] };
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1] ?? '');
      });
      return { kind: 'found', operation, params };
    }
    return { kind: 'not-found' };
  }

  all(): OperationFacts[] {
    return this.routes.flatMap((r) => [...r.byMethod.values()]);
  }
}

const templateRank = (path: string) => (path.match(/\{/g) ?? []).length * 1000 - path.length;

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A deprecated operation must say when (DECISIONS §2): `x-deprecation: { deprecated_at, sunset,
 * link }`, the sunset at least 90 days after the deprecation. A document that breaks this is
 * refused at start-up rather than served with made-up dates.
 */
function deprecationOf(value: unknown, name: string): Deprecation {
  const v = (value ?? {}) as { deprecated_at?: unknown; sunset?: unknown; link?: unknown };
  const at = typeof v.deprecated_at === 'string' ? Date.parse(v.deprecated_at) : NaN;
  const sunset = typeof v.sunset === 'string' ? Date.parse(v.sunset) : NaN;
  if (Number.isNaN(at) || Number.isNaN(sunset) || typeof v.link !== 'string') {
    throw new TypeError(`${name} is deprecated but its x-deprecation lacks deprecated_at, sunset or link`);
  }
  if (sunset < at + 90 * 86_400_000) throw new TypeError(`${name}: the sunset must be at least 90 days after the deprecation`);
  return { at, sunset, link: v.link };
}
