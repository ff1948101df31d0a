// express-openapi-validator over one bundled document: requests always, responses unless
// switched off (production may trade that check for speed). Security is ours, not its.
import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';

export function openApiValidator(document: Record<string, unknown>, options: { validateResponses: boolean }): RequestHandler[] {
  // The validator annotates the document it is given; each instance gets its own copy.
  const apiSpec = structuredClone(document) as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];
  return OpenApiValidator.middleware({
    apiSpec,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: false,
    $refParser: { mode: 'bundle' },
  }) as RequestHandler[];
}
