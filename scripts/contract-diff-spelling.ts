// One spelling for what JSON Schema lets a document say two ways, before `redocly diff` compares
// two documents: redocly reads only one of each pair, and would rate a rewrite between them as a
// change of meaning. Code generators read the other one better, so the documents use it.
//
// 1. A single value: `const: x` is `enum: [x]` (2020-12 §6.1.2, §6.1.3). openapi-zod-client
//    ignores `const`, so a discriminated union whose members say their tag with `const` has no
//    literal to tell them apart (zod throws when the client module loads); it reads `enum`.
//
// 2. No constraint: an `items` schema that only annotates (title, description, examples, `x-`)
//    accepts everything, like no `items` at all (2020-12 §4.3.2). hey-api's zod plugin reads any
//    `items` beside `prefixItems` as a further required member, so the documents leave it out.
//
// 3. "This value or null":
// JSON Schema 2020-12 says the same thing two ways: `{type: [string, 'null'], enum: [a, b, null]}`
// and `{anyOf: [{type: string, enum: [a, b]}, {type: 'null'}]}` (or `oneOf`: the members cannot
// both match). Code generators read the second one better (openapi-zod-client turns a `null` in an
// enum into `z.enum([..., null])`, which does not compile), but redocly reads only the first: it
// sees the `anyOf` form as a schema of type `any` with its enum removed and rates the rewrite
// breaking. The gate therefore rewrites the `anyOf`/`oneOf` form into the `type` array form in
// both documents before diffing, so a change between the forms is rated by what it means and a
// real change inside either form (a value removed, a type changed) is still seen.
//
// Only an exact equivalence is rewritten: two members, one of which is exactly `{type: 'null'}`
// and the other a plain inline schema of one non-null type whose keywords (but `enum`/`const`)
// do not apply to null (RFC draft-bhutton-json-schema-validation-01 §6: string, number, array
// and object keywords ignore other types). `enum` gains `null` and `const` becomes a two-value
// `enum`, since those two apply to every type. Anything else is left as it is.
type Json = Record<string, unknown>;

/** Keywords that constrain only one non-null type (so they pass null), or only annotate. */
const TYPE_LOCAL = new Set([
  // annotations
  'title',
  'description',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  // string
  'minLength',
  'maxLength',
  'pattern',
  'contentEncoding',
  'contentMediaType',
  // number
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  // array
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  // object
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
]);

const ANNOTATIONS = new Set(['title', 'description', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNullSchema = (v: unknown) => isObject(v) && Object.keys(v).length === 1 && v.type === 'null';

/** The `type`-array form of `schema` when it is an `anyOf`/`oneOf` of one plain schema and null. */
function collapse(schema: Json): Json | undefined {
  const key = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
  if (!key || ('anyOf' in schema && 'oneOf' in schema)) return undefined;
  const members = schema[key] as unknown[];
  if (members.length !== 2) return undefined;
  const nullAt = members.findIndex(isNullSchema);
  const other = members[1 - nullAt];
  if (nullAt < 0 || !isObject(other) || typeof other.type !== 'string' || other.type === 'null') return undefined;
  // Beside the composition, only annotations; inside the member, only its type, enum or const, and
  // keywords of that one type.
  const outer = Object.keys(schema).filter((k) => k !== key);
  if (!outer.every((k) => ANNOTATIONS.has(k) || k.startsWith('x-'))) return undefined;
  if (!Object.keys(other).every((k) => k === 'type' || k === 'enum' || k === 'const' || TYPE_LOCAL.has(k)))
    return undefined;
  if ('enum' in other && 'const' in other) return undefined;
  const { enum: values, const: only, ...rest } = other;
  const out: Json = { ...rest, ...Object.fromEntries(outer.map((k) => [k, schema[k]])), type: [other.type, 'null'] };
  if (Array.isArray(values)) out.enum = [...values, null];
  else if ('const' in other) out.enum = [only, null];
  return out;
}

/** `enum: [x]` for `const: x` (a schema with both is left alone). */
function constAsEnum(schema: Json): Json {
  if (!('const' in schema) || 'enum' in schema) return schema;
  const { const: only, ...rest } = schema;
  return { ...rest, enum: [only] };
}

/** Without an `items` that only annotates (it accepts every member). */
function withoutAnnotationOnlyItems(schema: Json): Json {
  const items = schema.items;
  if (!isObject(items) || !Object.keys(items).every((k) => ANNOTATIONS.has(k) || k.startsWith('x-'))) return schema;
  const { items: _dropped, ...rest } = schema;
  return rest;
}

/** Values, not schemas: never rewritten. */
const VALUES = new Set(['example', 'examples', 'default', 'enum', 'const']);

/**
 * A copy of `node` in one spelling, at any depth: `const` as a one-value `enum`, no `items` that
 * only annotates, and every nullable `anyOf`/`oneOf` as a `type` array.
 */
export function oneSpelling(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(oneSpelling);
  if (!isObject(node)) return node;
  const children = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, VALUES.has(k) || k.startsWith('x-') ? v : oneSpelling(v)]),
  );
  const walked = withoutAnnotationOnlyItems(constAsEnum(children));
  return collapse(walked) ?? walked;
}
