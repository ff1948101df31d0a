// The structural limits of request bodies, as each document's `x-body-limits` fixes them, checked
// on the raw bytes before any parser runs (server/domain/body-structure.ts): a JSON body nested
// too deep or with too many members, or a form with too many fields, is a 400 `validation_error`
// that cost a scan, not a parse.
import type { RequestHandler } from 'express';
import {
  formStructureProblem,
  jsonStructureProblem,
  type JsonLimits,
  type StructureProblem,
} from '../domain/body-structure.ts';
import { ApiError } from './errors.ts';

export interface BodyLimits {
  json: JsonLimits;
  /** Absent where the document takes no form bodies. */
  form?: { maxFields: number };
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

function positiveInteger(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new Error(`x-body-limits: ${where} must be a positive integer`);
  return value;
}

/** The document's `x-body-limits`; throws at start-up when it is missing or malformed. */
export function bodyLimitsOf(document: Record<string, unknown>): BodyLimits {
  const raw = document['x-body-limits'] as
    { json?: Record<string, unknown>; form?: Record<string, unknown> } | undefined;
  if (!raw?.json) throw new Error('the document has no x-body-limits.json');
  return {
    json: {
      maxDepth: positiveInteger(raw.json['max-depth'], 'json.max-depth'),
      maxMembers: positiveInteger(raw.json['max-members'], 'json.max-members'),
    },
    ...(raw.form ? { form: { maxFields: positiveInteger(raw.form['max-fields'], 'form.max-fields') } } : {}),
  };
}

function refusal(problem: StructureProblem): ApiError {
  const rule =
    problem.limit === 'depth'
      ? `must not nest arrays and objects more than ${problem.max} levels deep`
      : problem.limit === 'members'
        ? `must not have more than ${problem.max} array elements and object members in all`
        : `must not have more than ${problem.max} form fields`;
  return new ApiError(
    'validation_error',
    `Request body ${rule} (x-body-limits; the limit was crossed at byte ${problem.offset})`,
    [{ path: '/body', message: rule }],
  );
}

/** Refuses a JSON or form body over the limits before anything parses it. */
export function bodyStructure(limits: BodyLimits): RequestHandler {
  return (req, _res, next) => {
    if (req.rawBody.length === 0) return next();
    const type = req.get('content-type') ?? '';
    const problem = JSON_TYPE.test(type)
      ? jsonStructureProblem(req.rawBody, limits.json)
      : limits.form && FORM_TYPE.test(type)
        ? formStructureProblem(req.rawBody, limits.form.maxFields)
        : undefined;
    next(problem ? refusal(problem) : undefined);
  };
}
