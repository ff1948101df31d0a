// Form-encoded request bodies, read from the raw bytes so a repeated parameter is seen (a
// parsed object would silently keep one of the values).
import type { Request } from 'express';

export type FormFields = Map<string, string[]>;

export const isFormEncoded = (req: Request) =>
  /^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.get('content-type') ?? '');

export function readForm(req: Request): FormFields {
  const fields: FormFields = new Map();
  const add = (name: string, value: string) => fields.set(name, [...(fields.get(name) ?? []), value]);
  const raw = (req as Request & { rawBody?: unknown }).rawBody;
  if (Buffer.isBuffer(raw) && raw.length > 0) {
    for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) add(name, value);
  } else if (typeof req.body === 'object' && req.body !== null && !Buffer.isBuffer(req.body)) {
    for (const [name, value] of Object.entries(req.body as Record<string, unknown>)) {
      for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') add(name, v);
    }
  }
  return fields;
}

/** Names of the listed parameters that were sent more than once. */
export const repeated = (fields: FormFields, names: readonly string[]) =>
  names.filter((n) => (fields.get(n)?.length ?? 0) > 1);

/** The single value of a parameter (undefined when absent; an empty value counts as absent, RFC 6749 §3.1). */
export function single(fields: FormFields, name: string): string | undefined {
  const v = fields.get(name)?.[0];
  return v === undefined || v === '' ? undefined : v;
}
