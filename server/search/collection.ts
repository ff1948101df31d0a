// The indexed listings: one row per domain ever added (a sold one is kept, switched off, so a
// relisting costs nothing), the terms each label was read as, and per term the postings (which
// documents hold it, with what weight). Document frequencies count listed documents only, so
// BM25 sees the inventory as it is now.
import { GrowableFloat32, GrowableInt32, GrowableUint8 } from './growable.ts';
import { nameQuality } from './quality.ts';
import type { Segmentation } from './segment.ts';

export interface SearchListing {
  domain: string;
  label: string;
  /** Without a leading dot. */
  tld: string;
  /** Kebab-case slug, or `uncategorised`. */
  category: string;
  price_cents: number;
  currency: string;
}

export interface Postings {
  docs: GrowableInt32;
  weights: GrowableFloat32;
}

/** Small string tables (TLDs, categories, currencies) stored as ids. */
class Interner {
  private ids = new Map<string, number>();
  readonly values: string[] = [];

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }
}

export class Collection {
  readonly domains: string[] = [];
  private readonly tldIds = new GrowableInt32(1024);
  private readonly categoryIds = new GrowableInt32(1024);
  private readonly currencyIds = new GrowableInt32(1024);
  private readonly prices: number[] = [];
  readonly listed = new GrowableUint8(1024);
  readonly quality = new GrowableFloat32(1024);
  /** FNV-1a of the domain, the tie-break after quality. */
  readonly hashes = new GrowableInt32(1024);
  /** Words read in the label; BM25's document length. */
  readonly lengths = new GrowableUint8(1024);
  private readonly termStart = new GrowableInt32(1024);
  private readonly termCount = new GrowableUint8(1024);
  private readonly docTerms = new GrowableInt32(4096);

  private readonly tlds = new Interner();
  private readonly categories = new Interner();
  private readonly currencies = new Interner();
  private readonly byDomain = new Map<string, number>();

  readonly termIds = new Map<string, number>();
  readonly terms: string[] = [];
  readonly postings: Postings[] = [];
  readonly df = new GrowableInt32(1024);
  listedCount = 0;
  private totalLength = 0;

  get averageLength(): number {
    return this.listedCount === 0 ? 1 : this.totalLength / this.listedCount;
  }

  docOf(domain: string): number | undefined {
    return this.byDomain.get(domain);
  }

  /**
   * The documents with this label under any TLD. Looked up as label + each TLD the collection
   * has (a few dozen), so a million labels need no second map.
   */
  docsWithLabel(label: string): number[] {
    const docs: number[] = [];
    for (const tld of this.tlds.values) {
      const doc = this.byDomain.get(`${label}.${tld}`);
      if (doc !== undefined) docs.push(doc);
    }
    return docs;
  }

  private tldOf(doc: number): string {
    return this.tlds.values[this.tldIds.data[doc] ?? 0] ?? '';
  }

  /** The domain without its TLD. */
  labelOf(doc: number): string {
    const domain = this.domains[doc] ?? '';
    return domain.slice(0, domain.length - this.tldOf(doc).length - 1);
  }

  isListed(doc: number): boolean {
    return this.listed.data[doc] === 1;
  }

  listing(doc: number): SearchListing {
    return {
      domain: this.domains[doc] ?? '',
      label: this.labelOf(doc),
      tld: this.tldOf(doc),
      category: this.categories.values[this.categoryIds.data[doc] ?? 0] ?? '',
      price_cents: this.prices[doc] ?? 0,
      currency: this.currencies.values[this.currencyIds.data[doc] ?? 0] ?? '',
    };
  }

  /** The terms a document's label was read as. */
  forEachTerm(doc: number, visit: (term: number) => void): void {
    const start = this.termStart.data[doc] ?? 0;
    const count = this.termCount.data[doc] ?? 0;
    for (let i = start; i < start + count; i++) visit(this.docTerms.data[i] ?? 0);
  }

  /** Adds a listing, or updates and relists the one with the same domain. Returns its document. */
  upsert(listing: SearchListing, read: (label: string) => Segmentation): number {
    // The label and TLD are the domain, so a known domain only needs its price and status refreshed.
    const existing = this.byDomain.get(listing.domain);
    if (existing !== undefined) {
      this.prices[existing] = listing.price_cents;
      this.currencyIds.data[existing] = this.currencies.id(listing.currency);
      this.categoryIds.data[existing] = this.categories.id(listing.category);
      this.setListed(existing, true);
      return existing;
    }

    const doc = this.domains.length;
    const segmentation = read(listing.label);
    this.domains.push(listing.domain);
    this.tldIds.push(this.tlds.id(listing.tld));
    this.categoryIds.push(this.categories.id(listing.category));
    this.currencyIds.push(this.currencies.id(listing.currency));
    this.prices.push(listing.price_cents);
    this.listed.push(0);
    const words = segmentation.tokens.length;
    this.lengths.push(Math.max(1, Math.min(255, words)));
    this.hashes.push(fnv1a(listing.domain));
    this.quality.push(
      nameQuality({ label: listing.label, tld: listing.tld, words, unknownLetters: segmentation.unknownLetters }),
    );

    const weights = new Map<string, number>();
    for (const token of segmentation.tokens) weights.set(token.term, (weights.get(token.term) ?? 0) + 1);
    for (const extra of segmentation.extras) if (!weights.has(extra.term)) weights.set(extra.term, extra.weight);
    // A brandable the word list cannot read (zorbexa) is still findable by its own spelling.
    if (segmentation.unknownLetters > 0 && !weights.has(listing.label)) weights.set(listing.label, 1);
    this.termStart.push(this.docTerms.length);
    this.termCount.push(Math.min(255, weights.size));
    let n = 0;
    for (const [term, weight] of weights) {
      if (n++ >= 255) break;
      const id = this.termId(term);
      this.docTerms.push(id);
      const postings = this.postings[id];
      postings?.docs.push(doc);
      postings?.weights.push(weight);
    }

    this.byDomain.set(listing.domain, doc);
    this.setListed(doc, true);
    return doc;
  }

  /** Listed ↔ not listed; false when nothing changed. */
  setListed(doc: number, listed: boolean): boolean {
    const was = this.listed.data[doc] === 1;
    if (was === listed) return false;
    this.listed.data[doc] = listed ? 1 : 0;
    const delta = listed ? 1 : -1;
    this.listedCount += delta;
    this.totalLength += delta * (this.lengths.data[doc] ?? 1);
    this.forEachTerm(doc, (term) => {
      this.df.data[term] = (this.df.data[term] ?? 0) + delta;
    });
    return true;
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.termIds.set(term, id);
      this.terms.push(term);
      this.postings.push({ docs: new GrowableInt32(), weights: new GrowableFloat32() });
      this.df.push(0);
    }
    return id;
  }
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}
