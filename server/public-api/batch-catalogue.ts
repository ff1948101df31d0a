// The batchable operations: each one's params schema (taken from the public document, so the
// batch, the REST call and the MCP tool share one contract), its single-call equivalent, and a
// compiled validator.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { components } from '../../generated/public.d.ts';
import type { ErrorDetail } from '../http/errors.ts';

type Schemas = components['schemas'];
type JsonSchema = Record<string, unknown>;

export const MAX_BATCH_OPERATIONS = 20;

export type BatchOpName = 'search_domain' | 'tld_registration_price' | 'whois_lookup' | 'tld_requirements';

interface OpDefinition {
  op: BatchOpName;
  description: string;
  /** Component schema of the public document describing `params`. */
  schema: keyof Schemas;
  equivalent: string;
}

const DEFINITIONS: readonly OpDefinition[] = [
  {
    op: 'search_domain',
    description:
      'Availability of a domain or label plus its alternate-TLD siblings (prices masked without a pricing:read token).',
    schema: 'DomainSearchRequest',
    equivalent: 'POST /api/domain/search',
  },
  {
    op: 'tld_registration_price',
    description: 'USD price to register, renew, transfer or restore on a TLD; all four without op.',
    schema: 'TldPriceParams',
    equivalent: 'GET /api/pricing/tld',
  },
  {
    op: 'whois_lookup',
    description: 'WHOIS/RDAP registration data of a domain.',
    schema: 'WhoisRequest',
    equivalent: 'POST /api/tools/whois',
  },
  {
    op: 'tld_requirements',
    description: 'Registration requirements of a TLD.',
    schema: 'TldRequirementsParams',
    equivalent: 'GET /api/tlds/{tld}/metadata',
  },
];

const DOCUMENT_FILE = new URL('../../generated/public.openapi.json', import.meta.url);
// OpenAPI-only annotations that are not JSON Schema 2020-12 keywords.
const NOT_JSON_SCHEMA = new Set(['example', 'xml', 'externalDocs', 'discriminator']);

/** The schema with every local `$ref` replaced by its target (these schemas have no cycles). */
function inline(value: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => inline(v, components));
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(obj.$ref)?.[1];
    if (!name || !(name in components)) throw new Error(`unresolvable $ref ${obj.$ref}`);
    return inline(components[name], components);
  }
  return Object.fromEntries(
    Object.entries(obj)
      .filter(([k]) => !NOT_JSON_SCHEMA.has(k))
      .map(([k, v]) => [k, inline(v, components)]),
  );
}

export interface BatchOp {
  entry: Schemas['BatchCatalogueEntry'];
  /** Problems with `params`, as Error details under `path`; empty when valid. */
  check(params: unknown, path: string): ErrorDetail[];
}

function detailsOf(errors: ErrorObject[] | null | undefined, path: string): ErrorDetail[] {
  return (errors ?? []).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? `: ${String((e.params as { additionalProperty?: unknown }).additionalProperty)}`
        : '';
    return { path: `${path}${e.instancePath}`, message: `${e.message ?? 'is invalid'}${extra}` };
  });
}

function build(): Map<string, BatchOp> {
  const document = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8')) as {
    components: { schemas: Record<string, unknown> };
  };
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const ops = new Map<string, BatchOp>();
  for (const d of DEFINITIONS) {
    const params = inline(document.components.schemas[d.schema], document.components.schemas) as JsonSchema;
    const validate: ValidateFunction = ajv.compile(params);
    ops.set(d.op, {
      // The generated type of a free-form `type: object` is Record<string, never>; a JSON Schema is such an object.
      entry: {
        op: d.op,
        description: d.description,
        params: params as Schemas['BatchCatalogueEntry']['params'],
        equivalent: d.equivalent,
        mcp_tool: d.op,
      },
      check: (value, path) => (validate(value) ? [] : detailsOf(validate.errors, path)),
    });
  }
  return ops;
}

let built: Map<string, BatchOp> | undefined;

/** The operations by name, built on first use. */
export function batchOps(): ReadonlyMap<string, BatchOp> {
  built ??= build();
  return built;
}

export function batchCatalogue(): Schemas['BatchCatalogue'] {
  return {
    max_operations: MAX_BATCH_OPERATIONS,
    operations: [...batchOps().values()].map((o) => structuredClone(o.entry)),
  };
}
