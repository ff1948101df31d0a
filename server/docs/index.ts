// The Documents operations of the public surface: both OpenAPI documents, the API index, the
// developer docs (HTML and Markdown twins), llms.txt and the AI catalog. Everything is built
// once when the handlers are made; a request only picks a prepared answer (and, for the
// documents carrying absolute URLs, finishes it for its base URL).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, Response } from 'express';
import { ApiError } from '../http/errors.ts';
import type { HandlerMap, PublicDeps } from '../public-api/context.ts';
import { escapeHtml } from '../public/html.ts';
import { GUIDES, SIGNING_VECTORS_FILE, type ApiName } from './catalog.ts';
import { aiCatalog, apiIndex } from './discovery.ts';
import { loadSigners, type SignerSource } from './signers.ts';
import { docsHtml, buildSite, type DocsSite } from './site.ts';

/** The repository root (documents in generated/, guides in docs/guides/ and spec/docs/). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The contract's pattern and length for `/docs/{page}`. */
const PAGE = /^[a-z0-9]+(-[a-z0-9]+)*(\.md)?$/;
const PAGE_MAX_LENGTH = 100;

export interface DocumentSources {
  documents: Record<ApiName, Record<string, unknown>>;
  guides: ReadonlyMap<string, string>;
  signers: readonly SignerSource[];
  /** spec/vectors/signing.json as it is (the contract package's `vectors/signing.json`). */
  signingVectors: string;
}

export function loadDocumentSources(root: string = REPO_ROOT): DocumentSources {
  const read = (api: ApiName) =>
    JSON.parse(readFileSync(join(root, 'generated', `${api}.openapi.json`), 'utf8')) as Record<string, unknown>;
  return {
    documents: { public: read('public'), partner: read('partner'), admin: read('admin') },
    guides: new Map(GUIDES.map((g) => [g.slug, readFileSync(join(root, g.file), 'utf8')])),
    signers: loadSigners(root),
    signingVectors: readFileSync(join(root, SIGNING_VECTORS_FILE), 'utf8'),
  };
}

const wantsJson = (req: Request) => req.accepts(['text/html', 'application/json']) === 'application/json';

function pageParam(req: Request, res: Response): string {
  const fromPipeline = (res.locals as { pathParams?: Record<string, string> }).pathParams?.page;
  return fromPipeline ?? String(req.params.page ?? '');
}

/** PageBadRequest / PageNotFound: an HTML page for a browser, the Error body for a JSON client. */
function pageError(req: Request, res: Response, error: ApiError, heading: string, text: string): void {
  res.setHeader('Vary', 'Accept');
  if (wantsJson(req)) throw error;
  const body = `<h1>${escapeHtml(heading)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="/docs">Go to the developer docs</a></p>`;
  res
    .status(error.status)
    .type('text/html')
    .send(docsHtml(heading, '/docs.md', body));
}

interface Prepared {
  site: DocsSite;
  publicJson: string;
  partnerJson: string;
  signingVectors: string;
}

function prepare(sources: DocumentSources): Prepared {
  // Serialised once: the documents are large and never change while the server runs.
  return {
    site: buildSite(sources),
    publicJson: JSON.stringify(sources.documents.public),
    partnerJson: JSON.stringify(sources.documents.partner),
    signingVectors: sources.signingVectors,
  };
}

export function createDocumentHandlers(
  deps: Pick<PublicDeps, 'baseUrl' | 'docsBaseUrl'>,
  sources: DocumentSources | Prepared,
): HandlerMap {
  const { site, publicJson, partnerJson, signingVectors } = 'site' in sources ? sources : prepare(sources);
  // The docs name the deployment's own address (never the request's Host); see HostTrust.listenBaseUrl.
  const docsBase = (req: Request) => (deps.docsBaseUrl ?? deps.baseUrl)(req);

  const sendMarkdown = (res: Response, text: string) => void res.type('text/markdown').send(text);

  return {
    getPublicOpenApi(_req, res) {
      res.type('application/json').send(publicJson);
    },
    getPartnerOpenApi(_req, res) {
      res.type('application/json').send(partnerJson);
    },
    getApiIndex(req, res) {
      res.json(apiIndex(deps.baseUrl(req)));
    },
    getAiCatalog(req, res) {
      res.json(aiCatalog(deps.baseUrl(req)));
    },
    getDocsIndex(req, res) {
      res.type('text/html').send(site.html(site.index, docsBase(req)));
    },
    getDocsIndexMarkdown(req, res) {
      sendMarkdown(res, site.markdown(site.index, docsBase(req)));
    },
    getLlmsTxt(req, res) {
      res.type('text/plain').send(site.llmsTxt(docsBase(req)));
    },
    getSigningVectors(_req, res) {
      res.type('application/json').send(signingVectors);
    },
    getDocsPage(req, res) {
      const requested = pageParam(req, res);
      if (requested.length > PAGE_MAX_LENGTH || !PAGE.test(requested)) {
        const error = new ApiError(
          'validation_error',
          `Request is invalid: /path/page must be a page slug (lowercase letters, digits and single hyphens, optionally ending in .md)`,
          [
            {
              path: '/path/page',
              message: `must match pattern "${PAGE.source}" and be at most ${PAGE_MAX_LENGTH} characters`,
            },
          ],
        );
        pageError(
          req,
          res,
          error,
          'Invalid page address',
          'A docs page address is lowercase letters, digits and hyphens, optionally followed by .md.',
        );
        return;
      }
      const markdown = requested.endsWith('.md');
      const page = site.pages.get(markdown ? requested.slice(0, -3) : requested);
      if (!page) {
        pageError(
          req,
          res,
          new ApiError('not_found', 'No page at this address; the developer docs start at /docs'),
          'Page not found',
          'There is no docs page at this address.',
        );
        return;
      }
      if (markdown) sendMarkdown(res, site.markdown(page, docsBase(req)));
      else res.type('text/html').send(site.html(page, docsBase(req)));
    },
  };
}

/**
 * The files behind the docs do not change while the process runs, so every app built in this
 * process (tests build many) shares one build.
 */
let shared: Prepared | undefined;

export function documentHandlers(deps: PublicDeps): HandlerMap {
  shared ??= prepare(loadDocumentSources());
  return createDocumentHandlers(deps, shared);
}
