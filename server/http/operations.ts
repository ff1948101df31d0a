// The per-operation facts of a bundled document (scopes, rate-limit class, deprecation, CORS),
// read at start-up so the pipeline can act on them before the validator runs. Never copied into code.
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
  /** `x-cors` of the operation's path item: which browser origins may read its answers; none when absent. */
  cors?: CorsPolicy;
}

/** The CORS policies a path item may name (`x-cors`; the public document's root `x-cors` defines them). */
export const CORS_POLICIES = ['any-origin', 'allowed-origins'] as const;
export type CorsPolicy = (typeof CORS_POLICIES)[number];

export interface Deprecation {
  /** ms */
  at: number;
  /** ms */
  sunset: number;
  link: string;
}

export type OperationMatch = { kind: 'found'; operation: OperationFacts; params: Record<string, string> } | { kind: 'method-not-allowed'; allowed: string[] } | { kind: 'not-found' };

type OperationObject = { operationId?: string; 'x-scopes'?: string[]; 'x-rate-limit'?: string; deprecated?: boolean; 'x-deprecation'?: unknown };
type Document = {
  paths?: Record<string, Record<string, OperationObject> & { 'x-cors'?: unknown }>;
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
      const item = paths[path] ?? {};
      const cors = corsOf(item['x-cors'], path);
      for (const [method, op] of Object.entries(item) as Array<[string, OperationObject]>) {
        if (!METHODS.includes(method)) continue;
        byMethod.set(method.toUpperCase(), {
          operationId: op.operationId ?? `${method} ${path}`,
          method: method.toUpperCase(),
          path,
          scopes: op['x-scopes'] ?? [],
          rateLimit: op['x-rate-limit'],
          deprecated: op.deprecated === true,
          ...(op.deprecated === true ? { deprecation: deprecationOf(op['x-deprecation'], `${method.toUpperCase()} ${path}`) } : {}),
          ...(cors ? { cors } : {}),
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

  /** Every operation of the path item a raw request path falls under (none for an unknown path). */
  operationsAt(rawPath: string): OperationFacts[] {
    const route = this.routes.find((r) => r.regex.test(rawPath));
    return route ? [...route.byMethod.values()] : [];
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

/** A path item's `x-cors`: absent, or one of the policies; anything else is refused at start-up. */
function corsOf(value: unknown, path: string): CorsPolicy | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (CORS_POLICIES as readonly string[]).includes(value)) return value as CorsPolicy;
  throw new TypeError(`${path}: x-cors must be one of ${CORS_POLICIES.join(', ')}`);
}

/**
 * A deprecated operation must say when (each document's "Versioning" paragraph): `x-deprecation: { deprecated_at, sunset,
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
