// What the integration tests expect, read from the bundled contract (generated/*.openapi.json),
// never from the server's code.
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../../', import.meta.url);

type Operation = {
  operationId?: string;
  'x-scopes'?: string[];
  'x-rate-limit'?: string;
  'x-transitions'?: Record<string, unknown>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
  'x-rate-limit-classes': Record<string, { quota: number; 'window-seconds': number }>;
  'x-webhook-delivery': { 'delivered-kinds': string[]; headers: string[] };
  [key: string]: unknown;
};

function load(name: string): Document {
  return JSON.parse(readFileSync(new URL(`generated/${name}.openapi.json`, ROOT), 'utf8')) as Document;
}

export const partnerDoc = load('partner');
export const adminDoc = load('admin');

/** The operation at `method path` of the partner document; fails loudly when the contract lacks it. */
export function partnerOperation(method: string, path: string): Operation {
  const op = partnerDoc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`the partner contract has no ${method} ${path}`);
  return op;
}

/** `x-scopes` of a partner operation. */
export function scopesOf(method: string, path: string): string[] {
  const scopes = partnerOperation(method, path)['x-scopes'];
  if (!Array.isArray(scopes) || scopes.length === 0) throw new Error(`${method} ${path} declares no x-scopes`);
  return scopes;
}

/** `x-rate-limit` class of a partner operation and its quota. */
export function rateLimitOf(method: string, path: string): { name: string; quota: number; windowSeconds: number } {
  const name = partnerOperation(method, path)['x-rate-limit'];
  if (!name) throw new Error(`${method} ${path} declares no x-rate-limit`);
  const cls = partnerDoc['x-rate-limit-classes'][name];
  if (!cls) throw new Error(`x-rate-limit-classes has no ${name}`);
  return { name, quota: cls.quota, windowSeconds: cls['window-seconds'] };
}

/** The HTTP status of each error code (`x-status-of-code` of ErrorCode). */
export const STATUS_OF_CODE = partnerDoc.components.schemas.ErrorCode?.['x-status-of-code'] as Record<string, number>;

export interface Transition {
  from: string[];
  to: string | Record<string, string>;
  event: string;
  webhook: boolean;
  'also-writes': Array<{ event: string; webhook: boolean }>;
}

/** The admin spec's `x-transitions` of POST /orders/{public_id}/{action}. */
export const ORDER_TRANSITIONS = adminDoc.paths['/api/admin/v1/orders/{public_id}/{action}']?.post?.[
  'x-transitions'
] as Record<string, Transition>;

/** Every order status (the OrderStatus enum). */
export const ORDER_STATUSES = partnerDoc.components.schemas.OrderStatus?.enum as string[];

/** The event kinds delivered by webhook (x-webhook-delivery). */
export const DELIVERED_KINDS = partnerDoc['x-webhook-delivery']['delivered-kinds'];

export const PARTNER_PREFIX = '/api/partner/v1';
export const WEBHOOKS_PATH = '/api/partner/webhooks';
