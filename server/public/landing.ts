// The pages a referral link lands on (public contract: getHomePage, getDomainPage,
// getProductPage): the home page, one domain's page and one product's page. They sit behind the
// OpenAPI validator, so a path segment that breaks the contract's form (DomainName, the product
// slug) is a 400 before anything here runs; what a well-formed segment names is looked up, and a
// name the inventory never held or a slug naming no product is a 404, so no page ever shows a
// name only the link's author chose. Errors become the HTML page or the Error body in
// public-api/error-format.ts. Pages stay out of search engines (html.ts): the reference
// server's site is a stand-in for a deployment's own.
import type { Request, Response } from 'express';
import { formatPrice } from '../domain/checkout.ts';
import { PRODUCTS } from '../domain/referral.ts';
import { ApiError } from '../http/errors.ts';
import type { HandlerMap, PublicDeps } from '../public-api/context.ts';
import { PUBLIC_ENVIRONMENT } from '../public-api/reads/environment.ts';
import { escapeHtml, htmlPage } from './html.ts';

type Product = (typeof PRODUCTS)[number];

/** What each product page says; the keys are exactly the product slugs a link may name. */
const PRODUCT_PAGES: Readonly<Record<Product, { title: string; text: string }>> = {
  'hosted-checkout': {
    title: 'Hosted checkout',
    text: 'A payment page we host for the sites that sell our domains: the buyer pays by card and the domain is transferred to them.',
  },
  brokerage: {
    title: 'Domain brokerage',
    text: 'We contact the owner of a domain you want and negotiate for you, managed by a broker or self-serve, with a progress page you can follow.',
  },
  referral: {
    title: 'Referral programme',
    text: 'Share tracked links to our domains and earn a commission on every sale made within 30 days of a click.',
  },
  'partner-api': {
    title: 'Partner API',
    text: 'A signed HTTP API to search, quote, order and settle domain sales from your own site or app.',
  },
  'domain-search': {
    title: 'Domain search',
    text: 'Find an available domain and its siblings on other top-level domains, with their prices.',
  },
  marketplace: {
    title: 'Marketplace',
    text: 'Domains for sale at a fixed buy-now price, ready to be transferred to you.',
  },
};

const isProduct = (slug: string): slug is Product => Object.hasOwn(PRODUCT_PAGES, slug);

// WCAG AA contrast on white (#1a1a1a 17:1, #1d4ed8 6.7:1).
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a;background:#fff}' +
  'a{color:#1d4ed8}:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}li{margin:.25rem 0}';

const page = (title: string, main: string) => htmlPage(title, STYLE, main);

const FOOTER = '<p><a href="/">Home</a> · <a href="/docs">Developer docs</a></p>';

function productList(): string {
  const items = PRODUCTS.map(
    (slug) => `<li><a href="/products/${slug}">${escapeHtml(PRODUCT_PAGES[slug].title)}</a></li>`,
  );
  return `<ul>\n${items.join('\n')}\n</ul>`;
}

export function homePage(): string {
  return page(
    'Domain Sales',
    `<h1>Domain Sales</h1>
<p>Domains for sale, and the services to buy, sell and refer them.</p>
<h2>Products</h2>
${productList()}
<p><a href="/docs">Developer docs</a></p>`,
  );
}

const pathParam = (res: Response, name: string) => res.locals.pathParams?.[name] ?? '';

/** The 4xx of these pages depends on Accept (HTML page or Error body). */
const variesByAccept = (res: Response) => res.setHeader('Vary', 'Accept');

export function landingHandlers(deps: Pick<PublicDeps, 'store'>): HandlerMap {
  return {
    getHomePage(_req: Request, res: Response) {
      res.type('html').send(homePage());
    },

    async getDomainPage(_req: Request, res: Response) {
      variesByAccept(res);
      const name = pathParam(res, 'name');
      const record = await deps.store.inventory.find(PUBLIC_ENVIRONMENT, name);
      if (!record)
        throw new ApiError('not_found', 'No domain page at this address: the domain is not in our inventory');
      const domain = escapeHtml(record.domain);
      const body =
        record.status === 'listed'
          ? `<p role="status">For sale at <strong>${escapeHtml(formatPrice(record.price_cents, record.currency))}</strong>.</p>`
          : '<p role="status">This domain has been sold and is no longer available.</p>';
      res
        .type('html')
        .send(
          page(
            record.status === 'listed' ? `${record.domain} is for sale` : `${record.domain} has been sold`,
            `<h1>${domain}</h1>\n${body}\n<p><a href="/products/marketplace">More domains for sale</a></p>\n${FOOTER}`,
          ),
        );
    },

    getProductPage(_req: Request, res: Response) {
      variesByAccept(res);
      const slug = pathParam(res, 'slug');
      if (!isProduct(slug)) throw new ApiError('not_found', 'No product page at this address');
      const product = PRODUCT_PAGES[slug];
      res
        .type('html')
        .send(
          page(product.title, `<h1>${escapeHtml(product.title)}</h1>\n<p>${escapeHtml(product.text)}</p>\n${FOOTER}`),
        );
    },
  };
}
