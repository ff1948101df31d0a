// Validates every example in a bundled OpenAPI 3.1 document against its schema:
// media-type and parameter/header `example`/`examples`, and schema-level `examples` arrays.
// OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's 2020 dialect checks them directly;
// $refs resolve because the whole document is registered as one schema resource.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface ExampleProblem {
  pointer: string;
  message: string;
}

const DOC_ID = 'https://contract.invalid/doc.json';
const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isObject = (v: unknown): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves a local `$ref` chain (Example and other component objects). */
function follow(doc: Json, node: Json): Json {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 10; hops++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) break;
    let target: Json = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? (target[key] ?? null) : Array.isArray(target) ? (target[Number(key)] ?? null) : null;
    }
    current = target;
  }
  return current;
}

export function exampleProblems(document: unknown): ExampleProblem[] {
  const doc = document as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...(doc as object), $id: DOC_ID });
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string) => {
    let fn = compiled.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      compiled.set(pointer, fn);
    }
    return fn;
  };
  const problems: ExampleProblem[] = [];
  const check = (schemaPointer: string, value: unknown, where: string) => {
    let validate: ValidateFunction;
    try {
      validate = validatorAt(schemaPointer);
    } catch (err) {
      problems.push({ pointer: where, message: `schema does not compile: ${(err as Error).message}` });
      return;
    }
    if (!validate(value)) {
      const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
      problems.push({ pointer: where, message: why });
    }
  };

  // Containers that pair a `schema` with `example`/`examples`: media types, parameters, headers.
  const visitContainer = (node: { [key: string]: Json }, pointer: string) => {
    if (!isObject(node.schema)) return;
    const schemaPointer = `${pointer}/schema`;
    if ('example' in node) check(schemaPointer, node.example, `${pointer}/example`);
    if (isObject(node.examples)) {
      for (const [name, ex] of Object.entries(node.examples)) {
        const example = follow(doc, ex);
        if (isObject(example) && 'value' in example)
          check(schemaPointer, example.value, `${pointer}/examples/${escape(name)}`);
      }
    }
  };

  // Schema-level `examples` (JSON Schema's array form) are checked against the schema they sit in.
  const visitSchema = (node: Json, pointer: string) => {
    if (!isObject(node)) return;
    if (Array.isArray(node.examples)) {
      node.examples.forEach((ex, i) => check(pointer, ex, `${pointer}/examples/${i}`));
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'examples' || key === 'example' || key === 'const' || key === 'enum' || key === 'default') continue;
      if (Array.isArray(child)) child.forEach((c, i) => visitSchema(c, `${pointer}/${escape(key)}/${i}`));
      else if (isObject(child)) {
        if (key === 'properties' || key === '$defs' || key === 'patternProperties' || key === 'dependentSchemas') {
          for (const [name, sub] of Object.entries(child))
            visitSchema(sub, `${pointer}/${escape(key)}/${escape(name)}`);
        } else visitSchema(child, `${pointer}/${escape(key)}`);
      }
    }
  };

  const walk = (node: Json, pointer: string) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => walk(child, `${pointer}/${i}`));
      return;
    }
    if (!isObject(node)) return;
    if (isObject(node.schema)) {
      visitContainer(node, pointer);
      visitSchema(node.schema, `${pointer}/schema`);
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'schema' || key === 'examples' || key === 'example') continue;
      if (key === 'schemas' && pointer === '/components') {
        for (const [name, schema] of Object.entries(isObject(child) ? child : {})) {
          visitSchema(schema, `/components/schemas/${escape(name)}`);
        }
        continue;
      }
      walk(child, `${pointer}/${escape(key)}`);
    }
  };
  walk(doc, '');
  return problems;
}

/** Counts the examples a document carries (so a test can tell "no problems" from "no examples"). */
export function countExamples(document: unknown): number {
  let count = 0;
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    if ('example' in node) count++;
    if (isObject(node.examples)) count += Object.keys(node.examples).length;
    if (Array.isArray(node.examples)) count += node.examples.length;
    Object.values(node).forEach(walk);
  };
  walk(document);
  return count;
}
