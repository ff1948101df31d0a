// Loads the bundled documents of generated/ and offers the few look-ups the contract tests need.
import { readFileSync } from 'node:fs';
import { bundlePath, type ApiName } from '../../scripts/contract.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function loadBundle(api: ApiName): JsonObject {
  return JSON.parse(readFileSync(bundlePath(api), 'utf8')) as JsonObject;
}

/** Follows local $refs until a non-reference object. */
export function deref(doc: JsonObject, node: Json | undefined): JsonObject {
  let current: Json | undefined = node;
  for (let i = 0; isObject(current) && typeof current.$ref === 'string'; i++) {
    if (i > 20) throw new Error('reference cycle');
    const parts = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: Json | undefined = doc;
    for (const part of parts) target = isObject(target) ? target[part] : undefined;
    if (target === undefined) throw new Error(`unresolved $ref ${current.$ref}`);
    current = target;
  }
  if (!isObject(current)) throw new Error('expected an object');
  return current;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface OperationRef {
  method: string;
  path: string;
  operation: JsonObject;
}

export function operations(doc: JsonObject): OperationRef[] {
  const out: OperationRef[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const pathItem = deref(doc, item);
    for (const method of METHODS) {
      const op = pathItem[method];
      if (isObject(op)) out.push({ method, path, operation: op });
    }
  }
  return out;
}

export function responsesOf(doc: JsonObject, op: JsonObject): Array<[status: string, response: JsonObject]> {
  return Object.entries(isObject(op.responses) ? op.responses : {}).map(([status, r]) => [status, deref(doc, r)]);
}

/** The `$ref` string of a media type's schema, if it is a plain reference. */
export function schemaRef(media: Json | undefined): string | undefined {
  if (!isObject(media) || !isObject(media.schema)) return undefined;
  const ref = media.schema.$ref;
  return typeof ref === 'string' ? ref : undefined;
}
