// The per-deployment facts the CLI needs, read from the partner document the deployment serves
// (GET /api/partner/v1/openapi.json, public): the signing window (`x-signing`
// timestamp-skew-seconds) and what a real webhook delivery is (`x-webhook-delivery`: the kinds
// delivered and the receiver's time limit). When the document cannot be read, the signing window
// falls back to the protocol module's constant and every event kind is treated as delivered;
// `source` says which happened so the commands can print it.
import { TIMESTAMP_SKEW_SECONDS } from '../protocol/index.ts';

export const DOCUMENT_PATH = '/api/partner/v1/openapi.json';

export interface DeploymentContract {
  skewSeconds: number;
  /** Event types a real deployment delivers; undefined when unknown (then all are forwarded). */
  deliveredKinds: string[] | undefined;
  deliveryTimeoutSeconds: number;
  source: 'deployment' | 'built-in';
}

const FALLBACK: DeploymentContract = {
  skewSeconds: TIMESTAMP_SKEW_SECONDS,
  deliveredKinds: undefined,
  deliveryTimeoutSeconds: 5,
  source: 'built-in',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const positive = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;

/** Pure: the facts in a parsed partner document, each falling back on its own. */
export function contractFromDocument(document: unknown): DeploymentContract {
  if (!isRecord(document)) return FALLBACK;
  const signing = isRecord(document['x-signing']) ? document['x-signing'] : {};
  const delivery = isRecord(document['x-webhook-delivery']) ? document['x-webhook-delivery'] : {};
  const kinds = delivery['delivered-kinds'];
  return {
    skewSeconds: positive(signing['timestamp-skew-seconds']) ?? FALLBACK.skewSeconds,
    deliveredKinds: Array.isArray(kinds) && kinds.every((k) => typeof k === 'string') ? kinds : undefined,
    deliveryTimeoutSeconds: positive(delivery['timeout-seconds']) ?? FALLBACK.deliveryTimeoutSeconds,
    source: 'deployment',
  };
}

/** Reads the deployment's partner document; never throws (a deployment may not serve it). */
export async function readDeploymentContract(baseUrl: string, timeoutMs = 5000): Promise<DeploymentContract> {
  try {
    const res = await fetch(baseUrl + DOCUMENT_PATH, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
    if (!res.ok) return FALLBACK;
    return contractFromDocument(await res.json());
  } catch {
    return FALLBACK;
  }
}
