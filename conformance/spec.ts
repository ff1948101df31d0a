// The contract as the suite reads it: the contract index the server uses too
// (server/contract/index.ts), over the bundled documents of generated/, with a JSON Schema
// validator for answers. Scopes, rate-limit classes and error codes come from here, never from
// the server's code.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import {
  APIS,
  Contract,
  atPointer,
  loadDocument,
  GENERATED_DIR,
  type Api,
  type ContractOperation,
} from '../server/contract/index.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;

export type SpecApi = Api;

/** An operation as the index lists it: parameters and responses resolved, schema pointers, `x-` facts. */
export type SpecOperation = ContractOperation;

export class SpecIndex {
  readonly operations: SpecOperation[];
  readonly contract: Contract;
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly documents: { partner: Json; public: Json; admin: Json }) {
    addFormats(this.ajv);
    this.contract = new Contract(documents);
    this.operations = this.contract.operations;
    for (const api of APIS) this.ajv.addSchema({ ...documents[api], $id: `https://contract.invalid/${api}.json` });
  }

  static load(): SpecIndex {
    return new SpecIndex({
      partner: loadDocument(GENERATED_DIR, 'partner'),
      public: loadDocument(GENERATED_DIR, 'public'),
      admin: loadDocument(GENERATED_DIR, 'admin'),
    });
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
    const contract = this.contract.of(api);
    let base: Json = contract.document;
    if (m[2] !== undefined) {
      const op = contract.byId(m[2]);
      if (!op) return undefined;
      base = op.object;
    }
    let node: unknown = base;
    for (const raw of (m[3] ?? '').split('/').slice(1)) {
      node = atPointer(node, `/${raw}`);
      if (node === undefined) return undefined;
      if (node && typeof node === 'object' && typeof (node as Json).$ref === 'string') node = contract.resolve(node);
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
    const match = this.contract.of(api).match(method, concretePath);
    return match.kind === 'found' ? match.operation : undefined;
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
}
