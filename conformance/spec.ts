// The contract as the suite reads it: the bundled documents of generated/, indexed by
// operation, with a JSON Schema validator for answers. Scopes, rate-limit classes and error
// codes come from here, never from the server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const GENERATED = join(fileURLToPath(import.meta.url), '../../generated');

type Json = Record<string, unknown>;

export type SpecApi = 'partner' | 'public' | 'admin';

export interface SpecOperation {
  api: SpecApi;
  method: string;
  path: string;
  operationId: string;
  scopes: string[];
  rateClass: string | undefined;
  /** Parameters with `$ref`s resolved, path-level ones included. */
  parameters: Json[];
  requestSchemaPointer: string | undefined;
  /** status (or `default`) → the response object, resolved. */
  responses: Record<string, Json>;
  /** JSON pointer of each response's JSON schema, by status. */
  responseSchemaPointers: Record<string, string>;
  deprecated: boolean;
}

export class SpecIndex {
  readonly operations: SpecOperation[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly documents: { partner: Json; public: Json; admin: Json }) {
    addFormats(this.ajv);
    for (const api of ['partner', 'public', 'admin'] as const) {
      this.ajv.addSchema({ ...documents[api], $id: `https://contract.invalid/${api}.json` });
      this.index(api, documents[api]);
    }
  }

  static load(): SpecIndex {
    const read = (api: string) => JSON.parse(readFileSync(join(GENERATED, `${api}.openapi.json`), 'utf8')) as Json;
    return new SpecIndex({ partner: read('partner'), public: read('public'), admin: read('admin') });
  }

  /**
   * What a `spec:` rule of a check names: `spec:<api>#<JSON pointer>` in a bundled document, or
   * `spec:<api>:<operationId>#<pointer>` inside one operation. Undefined when it names nothing
   * (the kit's own tests fail on that) or the rule is not a `spec:` rule.
   */
  ruleTarget(rule: string): unknown {
    const m = /^spec:(partner|public|admin)(?::([A-Za-z0-9_]+))?#(\/.*)?$/.exec(rule);
    if (!m) return undefined;
    const api = m[1] as SpecApi;
    let base: Json = this.documents[api];
    if (m[2] !== undefined) {
      const op = this.operations.find((o) => o.api === api && o.operationId === m[2]);
      if (!op) return undefined;
      base = (((base.paths as Json)[op.path] as Json)[op.method.toLowerCase()] as Json) ?? {};
    }
    let node: unknown = base;
    for (const raw of (m[3] ?? '').split('/').slice(1)) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Json)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
      if (node && typeof node === 'object' && typeof (node as Json).$ref === 'string') node = this.resolve(m[2] !== undefined ? this.documents[api] : base, node as Json);
    }
    return node;
  }

  /** A root `x-` extension, or one of an operation (`operationId`). */
  extension<T>(api: SpecApi, name: string, operationId?: string): T | undefined {
    return this.ruleTarget(`spec:${api}${operationId ? `:${operationId}` : ''}#/${name}`) as T | undefined;
  }

  find(api: SpecApi, method: string, path: string): SpecOperation | undefined {
    return this.operations.find((o) => o.api === api && o.method === method.toUpperCase() && o.path === path);
  }

  byId(operationId: string): SpecOperation {
    const op = this.operations.find((o) => o.operationId === operationId);
    if (!op) throw new Error(`The contract has no operation ${operationId}`);
    return op;
  }

  /** The operation a concrete request path (no query) belongs to. */
  match(api: SpecApi, method: string, concretePath: string): SpecOperation | undefined {
    const candidates = this.operations.filter((o) => o.api === api && o.method === method.toUpperCase());
    const exact = candidates.find((o) => o.path === concretePath);
    if (exact) return exact;
    return candidates.find((o) => new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concretePath));
  }

  /** Validates a value against the schema at a JSON pointer of one document; returns error text or undefined. */
  validate(api: SpecApi, pointer: string, value: unknown): string | undefined {
    const key = `${api}#${pointer}`;
    let fn = this.validators.get(key);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `https://contract.invalid/${api}.json#${pointer}` });
      this.validators.set(key, fn);
    }
    if (fn(value)) return undefined;
    return (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
  }

  /** Every ErrorCode value and its status (x-status-of-code). */
  errorStatuses(api: SpecApi = 'partner'): Record<string, number> {
    const schemas = (this.documents[api].components as Json).schemas as Record<string, Json>;
    return (schemas.ErrorCode as Json)['x-status-of-code'] as Record<string, number>;
  }

  private index(api: SpecApi, doc: Json): void {
    const paths = (doc.paths ?? {}) as Record<string, Json>;
    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    for (const [path, rawItem] of Object.entries(paths)) {
      const item = this.resolve(doc, rawItem);
      const shared = ((item.parameters as Json[] | undefined) ?? []).map((p) => this.resolve(doc, p));
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const base = `/paths/${escape(path)}/${method}`;
        const responses: Record<string, Json> = {};
        const responseSchemaPointers: Record<string, string> = {};
        for (const [status, raw] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
          const resolvedPointer = typeof raw.$ref === 'string' ? (raw.$ref).slice(1) : `${base}/responses/${status}`;
          const response = this.resolve(doc, raw);
          responses[status] = response;
          const content = (response.content ?? {}) as Record<string, Json>;
          const jsonType = Object.keys(content).find((t) => /json/.test(t));
          if (jsonType && content[jsonType]?.schema) responseSchemaPointers[status] = `${resolvedPointer}/content/${escape(jsonType)}/schema`;
        }
        const body = op.requestBody ? this.resolve(doc, op.requestBody as Json) : undefined;
        const bodyRef = (op.requestBody as Json | undefined)?.$ref;
        const bodyPointer = typeof bodyRef === 'string' ? bodyRef.slice(1) : `${base}/requestBody`;
        const bodyContent = (body?.content ?? {}) as Record<string, Json>;
        const bodyType = Object.keys(bodyContent).find((t) => /json/.test(t));
        this.operations.push({
          api,
          method: method.toUpperCase(),
          path,
          operationId: String(op.operationId),
          scopes: (op['x-scopes'] as string[] | undefined) ?? [],
          rateClass: op['x-rate-limit'] as string | undefined,
          parameters: [...shared, ...((op.parameters as Json[] | undefined) ?? []).map((p) => this.resolve(doc, p))],
          requestSchemaPointer: bodyType ? `${bodyPointer}/content/${escape(bodyType)}/schema` : undefined,
          responses,
          responseSchemaPointers,
          deprecated: op.deprecated === true,
        });
      }
    }
  }

  private resolve(doc: Json, node: Json): Json {
    let current = node;
    for (let i = 0; typeof current.$ref === 'string' && i < 20; i++) {
      let target: unknown = doc;
      for (const part of (current.$ref).replace(/^#\//, '').split('/')) {
        target = (target as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      current = target as Json;
    }
    return current;
  }
}
