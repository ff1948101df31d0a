// The contract index: each bundled document of generated/ read once, its operations listed with
// every per-operation fact the server, the conformance suite, the docs and the drills act on, and
// `$ref`s followed by one resolver. Nothing else walks a document's paths. Malformed facts
// (a deprecation without dates, an unknown CORS policy) are refused here, at start-up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Json = Record<string, unknown>;
export type Api = 'partner' | 'public' | 'admin';
export const APIS: readonly Api[] = ['partner', 'public', 'admin'];

/** Where `npm run generate` writes the bundled documents. */
export const GENERATED_DIR = join(fileURLToPath(import.meta.url), '../../../generated');

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

/** One security requirement object of OpenAPI: scheme name → scopes. */
export type SecurityRequirement = Array<Record<string, string[]>>;

export interface ContractOperation {
  api: Api;
  operationId: string;
  /** Upper case. */
  method: string;
  /** The path template as written in the spec, e.g. `/api/partner/v1/orders/{public_id}`. */
  path: string;
  /** `x-scopes`. */
  scopes: string[];
  /** `x-rate-limit`: the operation's rate-limit class. */
  rateClass: string | undefined;
  deprecated: boolean;
  /** `x-deprecation` of a deprecated operation: when it was deprecated, its sunset, its notice. */
  deprecation?: Deprecation;
  /** `x-cors` of the operation's path item: which browser origins may read its answers; none when absent. */
  cors?: CorsPolicy;
  /** The operation's `security`, or the document's when it sets none. */
  security: SecurityRequirement | undefined;
  /** Whether an `Idempotency-Key` header is declared: `required`, `optional`, or not at all. */
  idempotencyKey: 'required' | 'optional' | undefined;
  /** Parameters with `$ref`s resolved, path-level ones first. */
  parameters: Json[];
  /** JSON pointer of the request body's JSON schema, when it has one. */
  requestSchemaPointer: string | undefined;
  /** status (or `default`) → the response object, resolved. */
  responses: Record<string, Json>;
  /** JSON pointer of each response's JSON schema, by status. */
  responseSchemaPointers: Record<string, string>;
  /** The operation object as the document has it, for its other `x-` extensions. */
  object: Json;
}

export type OperationMatch =
  | { kind: 'found'; operation: ContractOperation; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function loadDocument(generatedDir: string, api: Api): Json {
  return JSON.parse(readFileSync(join(generatedDir, `${api}.openapi.json`), 'utf8')) as Json;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node a local JSON pointer (`/components/schemas/X`) names in `document`; undefined when none. */
export function atPointer(document: unknown, pointer: string): unknown {
  let node: unknown = document;
  for (const part of pointer.split('/').slice(1)) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Json)[unescapePointer(part)];
  }
  return node;
}

/** Follows local `$ref`s (`#/components/...`, the only kind a bundled document has) to the node they name. */
export function resolveRef(document: Json, node: unknown): Json {
  let current: unknown = node;
  for (
    let hops = 0;
    hops < 20 && isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#');
    hops++
  ) {
    current = atPointer(document, current.$ref.slice(1));
  }
  return isObject(current) ? current : {};
}

/** One bundled document, indexed by operation and routed by path template. */
export class ApiContract {
  /** In document order. */
  readonly operations: ContractOperation[] = [];
  private readonly byOperationId = new Map<string, ContractOperation>();
  private readonly routes: Route[] = [];
  /**
   * The routes a raw path can match, by its first segment: those whose template starts with that
   * literal segment or with a template, in `routes`' order. Every request is routed, most of them
   * through documents they are not in (the public document's CORS lookup sees every partner
   * request): a lookup here spares testing every template's pattern.
   */
  private readonly byFirstSegment = new Map<string, Route[]>();
  /** The routes whose first segment is a template: the candidates of any other first segment. */
  private readonly templatedFirst: Route[] = [];

  /**
   * `x-head`: HEAD is answered wherever GET is, as that GET without a body (RFC 9110 §9.3.2); the
   * documents list no HEAD operations of their own.
   */
  readonly headAsGet: boolean;

  constructor(
    readonly api: Api,
    readonly document: Json,
  ) {
    const head = document['x-head'];
    this.headAsGet = isObject(head) && head['answered-as'] === 'GET';
    const paths = isObject(document.paths) ? document.paths : {};
    for (const [path, rawItem] of Object.entries(paths)) {
      const item = this.resolve(rawItem);
      const cors = corsOf(item['x-cors'], path);
      const byMethod = new Map<string, ContractOperation>();
      for (const method of METHODS) {
        if (!isObject(item[method])) continue;
        const operation = this.operation(path, method, item, cors);
        this.operations.push(operation);
        this.byOperationId.set(operation.operationId, operation);
        byMethod.set(operation.method, operation);
      }
      this.routes.push({ path, ...pathPattern(path), byMethod });
    }
    // Literal segments before templated ones, so /brokerage/eligibility wins over /brokerage/{case_id}.
    const rank = (r: { names: string[]; path: string }) => r.names.length * 1000 - r.path.length;
    this.routes.sort((a, b) => rank(a) - rank(b));
    const literalFirst = (r: Route) => (r.path.startsWith('/{') ? undefined : firstSegment(r.path));
    for (const route of this.routes) if (literalFirst(route) === undefined) this.templatedFirst.push(route);
    for (const segment of new Set(this.routes.map(literalFirst))) {
      if (segment === undefined) continue;
      this.byFirstSegment.set(
        segment,
        this.routes.filter((r) => {
          const first = literalFirst(r);
          return first === undefined || first === segment;
        }),
      );
    }
  }

  /** The routes that can match a raw path (`byFirstSegment`), in order. */
  private candidates(rawPath: string): Route[] {
    return this.byFirstSegment.get(firstSegment(rawPath)) ?? this.templatedFirst;
  }

  /** Follows `$ref`s within this document. */
  resolve(node: unknown): Json {
    return resolveRef(this.document, node);
  }

  /** A root `x-` extension (or any root member) of the document. */
  root<T>(name: string): T | undefined {
    return this.document[name] as T | undefined;
  }

  /** The path item of a path template, resolved (its path-level parameters, its `x-` members). */
  pathItem(path: string): Json {
    return this.resolve((this.document.paths as Json | undefined)?.[path]);
  }

  byId(operationId: string): ContractOperation | undefined {
    return this.byOperationId.get(operationId);
  }

  /** Matches a raw request path (percent-escapes untouched, no query) and method. */
  match(method: string, rawPath: string): OperationMatch {
    for (const route of this.candidates(rawPath)) {
      const m = route.regex.exec(rawPath);
      if (!m) continue;
      const upper = method.toUpperCase();
      const operation =
        route.byMethod.get(upper) ?? (upper === 'HEAD' && this.headAsGet ? route.byMethod.get('GET') : undefined);
      if (!operation) return { kind: 'method-not-allowed', allowed: this.allowed(route.byMethod) };
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1] ?? '');
      });
      return { kind: 'found', operation, params };
    }
    return { kind: 'not-found' };
  }

  /** The methods a path answers (`Allow`): its operations', and HEAD wherever GET is (`x-head`). */
  private allowed(byMethod: Map<string, ContractOperation>): string[] {
    const methods = [...byMethod.keys()];
    if (this.headAsGet && byMethod.has('GET') && !byMethod.has('HEAD'))
      methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
    return methods;
  }

  /** Every operation of the path item a raw request path falls under (none for an unknown path). */
  operationsAt(rawPath: string): ContractOperation[] {
    const route = this.candidates(rawPath).find((r) => r.regex.test(rawPath));
    return route ? [...route.byMethod.values()] : [];
  }

  private operation(path: string, method: string, item: Json, cors: CorsPolicy | undefined): ContractOperation {
    const rawOp = item[method] as Json;
    const op = this.resolve(rawOp);
    const base = `/paths/${escapePointer(path)}/${method}`;
    const name = `${method.toUpperCase()} ${path}`;
    const parameters = dedupeParameters(
      [...asArray(item.parameters), ...asArray(op.parameters)].map((p) => this.resolve(p)),
    );
    const key = parameters.find((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
    const responses: Record<string, Json> = {};
    const responseSchemaPointers: Record<string, string> = {};
    for (const [status, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
      const ref = isObject(raw) ? raw.$ref : undefined;
      const pointer = typeof ref === 'string' ? ref.slice(1) : `${base}/responses/${status}`;
      const response = this.resolve(raw);
      responses[status] = response;
      const content = isObject(response.content) ? response.content : {};
      const jsonType = Object.keys(content).find((t) => /json/.test(t));
      if (jsonType && isObject(content[jsonType]) && content[jsonType].schema)
        responseSchemaPointers[status] = `${pointer}/content/${escapePointer(jsonType)}/schema`;
    }
    const bodyRef = isObject(op.requestBody) ? op.requestBody.$ref : undefined;
    const bodyPointer = typeof bodyRef === 'string' ? bodyRef.slice(1) : `${base}/requestBody`;
    const body = op.requestBody ? this.resolve(op.requestBody) : undefined;
    const bodyContent = isObject(body?.content) ? body.content : {};
    const bodyType = Object.keys(bodyContent).find((t) => /json/.test(t));
    const deprecated = op.deprecated === true;
    return {
      api: this.api,
      operationId: typeof op.operationId === 'string' ? op.operationId : name,
      method: method.toUpperCase(),
      path,
      scopes: Array.isArray(op['x-scopes']) ? (op['x-scopes'] as string[]) : [],
      rateClass: typeof op['x-rate-limit'] === 'string' ? op['x-rate-limit'] : undefined,
      deprecated,
      ...(deprecated ? { deprecation: deprecationOf(op['x-deprecation'], name) } : {}),
      ...(cors ? { cors } : {}),
      security: (op.security ?? this.document.security) as SecurityRequirement | undefined,
      idempotencyKey: key ? (key.required === true ? 'required' : 'optional') : undefined,
      parameters,
      requestSchemaPointer: bodyType ? `${bodyPointer}/content/${escapePointer(bodyType)}/schema` : undefined,
      responses,
      responseSchemaPointers,
      object: op,
    };
  }
}

/** The three documents of a deployment, each indexed once. */
export class Contract {
  readonly partner: ApiContract;
  readonly public: ApiContract;
  readonly admin: ApiContract;

  constructor(documents: Record<Api, Json>) {
    this.partner = new ApiContract('partner', documents.partner);
    this.public = new ApiContract('public', documents.public);
    this.admin = new ApiContract('admin', documents.admin);
  }

  /**
   * The index of the bundled documents in `generatedDir`, read once per process: they do not
   * change while it runs, and whatever is built from them (the validators) is then built once
   * too, however many apps the process creates. Treat the documents as read-only.
   */
  static load(generatedDir: string = GENERATED_DIR): Contract {
    let contract = loaded.get(generatedDir);
    if (!contract) {
      contract = new Contract({
        partner: loadDocument(generatedDir, 'partner'),
        public: loadDocument(generatedDir, 'public'),
        admin: loadDocument(generatedDir, 'admin'),
      });
      loaded.set(generatedDir, contract);
    }
    return contract;
  }

  of(api: Api): ApiContract {
    return this[api];
  }

  /** Every operation of the three documents, partner first. */
  get operations(): ContractOperation[] {
    return APIS.flatMap((api) => this[api].operations);
  }
}

const loaded = new Map<string, Contract>();

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** An operation's own parameter replaces the path item's of the same name and location (OpenAPI 3.1 §4.8.9). */
function dedupeParameters(parameters: Json[]): Json[] {
  const byKey = new Map<string, Json>();
  for (const p of parameters) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  return [...byKey.values()];
}

interface Route {
  path: string;
  regex: RegExp;
  names: string[];
  byMethod: Map<string, ContractOperation>;
}

/** A path's first segment, as it stands (`/api/v1` → `api`, `/` → the empty string). */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return path.slice(1, end === -1 ? path.length : end);
}

function pathPattern(path: string): { regex: RegExp; names: string[] } {
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
  return { regex: new RegExp(`^${pattern}$`), names };
}

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
 * A deprecated operation must say when (the spec's `x-deprecation`: `deprecated_at`, `sunset`,
 * `link`), the sunset at least 90 days after the deprecation. A document that breaks this is
 * refused at start-up rather than served with made-up dates.
 */
function deprecationOf(value: unknown, name: string): Deprecation {
  const v = (value ?? {}) as { deprecated_at?: unknown; sunset?: unknown; link?: unknown };
  const at = typeof v.deprecated_at === 'string' ? Date.parse(v.deprecated_at) : NaN;
  const sunset = typeof v.sunset === 'string' ? Date.parse(v.sunset) : NaN;
  if (Number.isNaN(at) || Number.isNaN(sunset) || typeof v.link !== 'string') {
    throw new TypeError(`${name} is deprecated but its x-deprecation lacks deprecated_at, sunset or link`);
  }
  if (sunset < at + 90 * 86_400_000)
    throw new TypeError(`${name}: the sunset must be at least 90 days after the deprecation`);
  return { at, sunset, link: v.link };
}
