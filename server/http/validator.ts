// express-openapi-validator over one bundled document: requests always, responses unless
// switched off (production may trade that check for speed). Security is ours, not its.
import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';

export function openApiValidator(document: Record<string, unknown>, options: { validateResponses: boolean }): RequestHandler[] {
  // The validator annotates the document it is given; each instance gets its own copy.
  const copy = structuredClone(document);
  allowReservedQueryCharacters(copy);
  const apiSpec = copy as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];
  return OpenApiValidator.middleware({
    apiSpec,
    // Parameters are text and always coerced by the validator; a JSON body is typed, so
    // `"expected_price": "250000"` or `true` is a validation_error, never silently converted.
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: false,
    $refParser: { mode: 'bundle' },
  }) as RequestHandler[];
}

/**
 * The server reads a raw query by its own rule (DECISIONS §1: split on `&` and the first `=`,
 * decode `%XX` escapes only), under which a literal `'`, `(`, `!`, `+`, `:` or `/` in a value is
 * unambiguous. The validator would refuse such values unless a parameter is `allowReserved`
 * (a hint to clients on how to serialise), which turns away requests the contract accepts,
 * among them what the partner client sends for a search text with an apostrophe. So every
 * query parameter of the validator's copy of the document allows them.
 */
function allowReservedQueryCharacters(document: Record<string, unknown>): void {
  const mark = (parameter: unknown) => {
    if (parameter && typeof parameter === 'object' && (parameter as { in?: unknown }).in === 'query') {
      (parameter as { allowReserved?: boolean }).allowReserved = true;
    }
  };
  const components = (document.components ?? {}) as { parameters?: Record<string, unknown> };
  for (const parameter of Object.values(components.parameters ?? {})) mark(parameter);
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const parameter of (item.parameters as unknown[] | undefined) ?? []) mark(parameter);
    for (const op of Object.values(item)) {
      if (op && typeof op === 'object' && Array.isArray((op as { parameters?: unknown }).parameters)) {
        for (const parameter of (op as { parameters: unknown[] }).parameters) mark(parameter);
      }
    }
  }
}
