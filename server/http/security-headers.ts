// The one place that sets the browser-hardening headers (the public document's
// `x-security-headers`): `X-Content-Type-Options` on every answer, `Strict-Transport-Security`
// on every answer of an https deployment, and on every HTML answer (pages, error pages, the
// small HTML bodies of redirects) a Content-Security-Policy, `X-Frame-Options` and a
// `Referrer-Policy`. Route modules never set these; a page that posts a form elsewhere names the
// destinations (allowFormTargets) its operation's `x-form-action` lists.
//
// The CSP is filled in per answer: `style-src` gets the SHA-256 source of each inline <style> of
// the page (the pages have no scripts and no other inline code, so no 'unsafe-inline' of any
// kind), and `form-action` the sources the operation lists. The headers are set when the status
// line is written, so they cover answers from anywhere in the pipeline.
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { ApiContract } from '../contract/index.ts';

/** Dynamic destinations an operation's `x-form-action` may name. */
export type FormTarget = 'return_url' | 'cancel_url' | 'redirect_uri';
const FORM_TARGETS: readonly string[] = ['return_url', 'cancel_url', 'redirect_uri'] satisfies readonly FormTarget[];

declare module 'express-serve-static-core' {
  interface Locals {
    /** CSP sources of the destinations this answer's form may lead to (allowFormTargets). */
    formTargets?: Partial<Record<FormTarget, string>>;
  }
}

export interface SecurityHeadersOptions {
  /** The public document's index: its `x-security-headers` and each operation's `x-form-action`. */
  contract: ApiContract;
  /** PUBLIC_BASE_URL; HSTS is sent only when it is https. */
  publicBaseUrl?: string | undefined;
  /** Test-only (server/faults.ts `form-action-self-only`): form-action keeps 'self' and drops the dynamic targets. */
  formActionSelfOnly?: boolean;
}

interface Policy {
  everyAnswer: Array<[string, string]>;
  httpsOnly: Array<[string, string]>;
  html: Array<[string, string]>;
  /** operationId → its `x-form-action` sources (`'self'` or a FormTarget name). */
  formActions: Map<string, string[]>;
}

const entries = (value: unknown, where: string): Array<[string, string]> => {
  if (!value || typeof value !== 'object')
    throw new Error(`x-security-headers: ${where} must map header names to values`);
  return Object.entries(value as Record<string, unknown>).map(([name, v]) => {
    if (typeof v !== 'string' || v === '')
      throw new Error(`x-security-headers: ${where}.${name} must be a non-empty string`);
    return [name, v];
  });
};

/** Reads `x-security-headers` and every `x-form-action` of the document; throws at start-up when malformed. */
export function securityPolicy(contract: ApiContract): Policy {
  const root = contract.root<Record<string, unknown>>('x-security-headers');
  if (!root) throw new Error('the document has no x-security-headers');
  const formActions = new Map<string, string[]>();
  for (const op of contract.operations) {
    const sources = op.object['x-form-action'];
    if (sources === undefined) continue;
    if (!Array.isArray(sources) || !sources.every((s) => s === "'self'" || FORM_TARGETS.includes(s as string))) {
      throw new Error(`x-form-action of ${op.operationId} must list 'self' and names among ${FORM_TARGETS.join(', ')}`);
    }
    formActions.set(op.operationId, sources as string[]);
  }
  return {
    everyAnswer: entries(root['every-answer'], 'every-answer'),
    httpsOnly: entries(root['https-deployments'], 'https-deployments'),
    html: entries(root['html-answers'], 'html-answers'),
    formActions,
  };
}

export interface SurfaceHeadersOptions {
  /** The surface's document: its `x-security-headers` `every-answer` and `https-deployments`. */
  contract: ApiContract;
  /** Where the surface's paths begin (`/api/partner/`). */
  prefix: string;
  /** Documents whose operations also live under the prefix and keep their own headers. */
  others: readonly ApiContract[];
  /** PUBLIC_BASE_URL; the https-deployments headers are sent only when it is https. */
  publicBaseUrl?: string | undefined;
}

/**
 * The headers a surface's own document puts on every answer under its prefix, on top of those
 * of every answer (securityHeaders): the partner document's `Cache-Control: no-store`, since its
 * answers carry capabilities and buyer data and its authentication is no `Authorization` header
 * that would keep a shared cache from storing them (RFC 9111 §3.5). Set before anything can
 * answer, so refusals and errors carry them too; a path another document describes (the public
 * document's GET /api/partner/v1/openapi.json) is that document's to head.
 */
export function surfaceHeaders(options: SurfaceHeadersOptions): RequestHandler {
  const root = options.contract.root<Record<string, unknown>>('x-security-headers');
  if (!root) throw new Error(`the ${options.contract.api} document has no x-security-headers`);
  const headers = [
    ...entries(root['every-answer'], 'every-answer'),
    ...(options.publicBaseUrl?.startsWith('https://') ? entries(root['https-deployments'], 'https-deployments') : []),
  ];
  // The other documents' paths under the prefix, found once: a partner request then costs a set
  // look-up, not a scan of another document's routes (a template falls back to the scan).
  const exact = new Set<string>();
  let templated = false;
  for (const other of options.others)
    for (const operation of other.operations)
      if (operation.path.startsWith(options.prefix))
        if (operation.path.includes('{')) templated = true;
        else exact.add(operation.path);
  const describedElsewhere = (path: string) =>
    exact.has(path) || (templated && options.others.some((other) => other.operationsAt(path).length > 0));
  return (req, res, next) => {
    if (!req.path.startsWith(options.prefix) || describedElsewhere(req.path)) return next();
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** Names where this answer's form may lead (its origin, or `scheme:` for an app's private-use scheme). */
export function allowFormTargets(res: Response, targets: Partial<Record<FormTarget, string | undefined>>): void {
  const kept: Partial<Record<FormTarget, string>> = { ...res.locals.formTargets };
  for (const [name, source] of Object.entries(targets) as Array<[FormTarget, string | undefined]>)
    if (source) kept[name] = source;
  res.locals.formTargets = kept;
}

// CSP3 §2.3.1 source grammar, as the WHATWG parser writes each part: `scheme-source` and the
// scheme, host and port of a `host-source`. A host may hold characters the URL parser keeps but
// a policy gives meaning to (`;` ends a directive, `,` a policy, space a source), so a host
// outside the grammar yields no source at all rather than an escaped or truncated one.
const SCHEME = /^[a-z][a-z0-9+.-]*:$/;
const HOST_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?$/;
const HOST_IPV6 = /^\[[0-9a-f:.]+\]$/;
const PORT = /^[0-9]{0,5}$/;

/**
 * The CSP source of the place a URL leads a browser to: `scheme://host[:port]` of its origin, or
 * its scheme alone when it has no origin (a native app's `com.example.app:/callback`).
 * Undefined for what is no URL, or whose host is not one a CSP source can name.
 */
export function cspSourceOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!SCHEME.test(parsed.protocol)) return undefined;
  if (parsed.origin === 'null') return parsed.protocol;
  const host = parsed.hostname;
  if (!(HOST_NAME.test(host) || HOST_IPV6.test(host)) || !PORT.test(parsed.port)) return undefined;
  return `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ''}`;
}

/**
 * Puts each `{name}` placeholder's value into a header template. By function, never with a
 * replacement string: `String.replace` would expand `$&`, `` $` ``, `$'` and `$<n>` in a value.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z-]+)\}/g, (placeholder, name: string) => values[name] ?? placeholder);
}

const STYLE_ELEMENT = /<style>([\s\S]*?)<\/style>/g;
const styleHashes = new Map<string, string>();

/** `'sha256-…'` of each inline style in the document's head (CSP3 hash sources). */
function inlineStyleSources(html: string): string[] {
  const head = html.slice(0, Math.max(0, html.indexOf('</head>')));
  const sources: string[] = [];
  for (const match of head.matchAll(STYLE_ELEMENT)) {
    const css = match[1] ?? '';
    let source = styleHashes.get(css);
    if (source === undefined) {
      source = `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
      if (styleHashes.size < 256) styleHashes.set(css, source);
    }
    sources.push(source);
  }
  return sources;
}

/** Whether the answer is HTML: by its Content-Type header, or one given to writeHead itself. */
function isHtml(res: Response, writeHeadArgs: unknown[]): boolean {
  let type = res.getHeader('content-type');
  for (const arg of writeHeadArgs) {
    if (!arg || typeof arg !== 'object' || Array.isArray(arg)) continue;
    for (const [name, value] of Object.entries(arg as Record<string, unknown>))
      if (name.toLowerCase() === 'content-type') type = value as string;
  }
  return typeof type === 'string' && /^text\/html\b/i.test(type);
}

export function securityHeaders(options: SecurityHeadersOptions): RequestHandler {
  const policy = securityPolicy(options.contract);
  const everyAnswer = options.publicBaseUrl?.startsWith('https://')
    ? [...policy.everyAnswer, ...policy.httpsOnly]
    : policy.everyAnswer;

  const htmlHeaders = (res: Response, body: unknown) => {
    const html = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '';
    const styles = inlineStyleSources(html);
    const operationId = res.locals.operation?.operationId;
    const targets = res.locals.formTargets ?? {};
    const actions = (operationId ? (policy.formActions.get(operationId) ?? []) : []).flatMap((s) =>
      s === "'self'" ? [s] : options.formActionSelfOnly ? [] : (targets[s as FormTarget] ?? []),
    );
    const values = {
      'inline-styles': styles.length ? [...new Set(styles)].join(' ') : "'none'",
      'form-action': actions.length ? [...new Set(actions)].join(' ') : "'none'",
    };
    for (const [name, value] of policy.html) res.setHeader(name, fillTemplate(value, values));
  };

  return (_req, res, next) => {
    for (const [name, value] of everyAnswer) res.setHeader(name, value);
    // The body is known when end() is called with it; the status line and headers are written
    // inside that call (Node's implicit writeHead) or before it by an explicit writeHead.
    let body: unknown;
    const end = res.end;
    const writeHead = res.writeHead;
    res.end = function (this: Response, ...args: unknown[]) {
      if (typeof args[0] !== 'function') body = args[0];
      return (end as (...a: unknown[]) => Response).apply(this, args);
    } as Response['end'];
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (isHtml(res, args)) htmlHeaders(res, body);
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as Response['writeHead'];
    next();
  };
}
