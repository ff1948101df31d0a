// Reads the spec files the domain tests compare against, so expected values come from the
// contract rather than from the code under test.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const ROOT = new URL('../../../', import.meta.url);

export function readText(relative: string): string {
  return readFileSync(new URL(relative, ROOT), 'utf8');
}

export function loadYaml(relative: string): unknown {
  return parse(readText(relative)) as unknown;
}

/** Walks a parsed document by member names; fails the test loudly if a step is missing. */
export function at(node: unknown, ...path: string[]): unknown {
  let current = node;
  for (const step of path) {
    if (typeof current !== 'object' || current === null || !(step in current)) {
      throw new Error(`spec has no ${path.join('.')} (stopped at ${step})`);
    }
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

export const PARTNER_ROOT = 'spec/partner/openapi.yaml';
export const PARTNER_SCHEMAS = 'spec/partner/components/schemas.yaml';
export const ADMIN_ORDER_ACTION = 'spec/admin/paths/orders_{public_id}_{action}.yaml';

export function partnerSchema(name: string): unknown {
  return at(loadYaml(PARTNER_SCHEMAS), 'components', 'schemas', name);
}
