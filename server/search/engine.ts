// One environment's search index behind one small interface: add or relist a listing, take one
// off sale, search. Everything is in memory and synchronous; a change is visible to the next
// search without rebuilding anything.
import { Collection, type SearchListing } from './collection.ts';
import { FuzzyVocabulary } from './fuzzy.ts';
import { fuse, type FusionMethod } from './fusion.ts';
import { keywordScores } from './keyword.ts';
import { language, type Language } from './language.ts';
import { parseQuery } from './query.ts';
import { isShown, rerank, roundScore } from './rerank.ts';
import { ScoreBoard, topK } from './scores.ts';
import { expandConcepts, GENERIC, SemanticVocabulary, semanticScores } from './semantic.ts';

export type { SearchListing } from './collection.ts';
export type SearchMode = 'hybrid' | 'keyword' | 'semantic';

/** The contract's cap on results per query. */
export const MAX_RESULTS = 5;
/** How many names each retriever hands to fusion. */
const CANDIDATES = 100;

export interface SearchOptions {
  /** At most MAX_RESULTS unless a caller (the service, before availability) asks for headroom. */
  limit?: number;
  /** The retrievers to use; only the relevance evaluation asks for one alone. */
  mode?: SearchMode;
  fusion?: FusionMethod;
}

export interface SearchHit {
  listing: SearchListing;
  /** After reranking, 0 to 1. */
  score: number;
  /** Before reranking: fusion's relevance and each retriever's own score. */
  relevance: number;
  keyword: number;
  semantic: number;
  quality: number;
}

export interface DomainIndex {
  /** Listed domains. */
  readonly size: number;
  /** A new listing, or a known domain listed again (its price refreshed). */
  upsert(listing: SearchListing): void;
  /** Takes a domain off sale (sold or withdrawn); false when it was not listed. */
  remove(domain: string): boolean;
  isListed(domain: string): boolean;
  /** Readies what searches read besides the postings (spelling and meaning of every indexed word), so the next search is as fast as any. */
  prepare(): void;
  search(q: string, options?: SearchOptions): SearchHit[];
}

export function createDomainIndex(listings: Iterable<SearchListing> = [], lang: Language = language()): DomainIndex {
  const collection = new Collection();
  const fuzzy = new FuzzyVocabulary();
  let fuzzySynced = 0;
  // Generic sandbox words (shop, life, online) belong to no topic: GENERIC marks them apart from
  // words outside the vocabulary, which may belong to any.
  const semanticVocabulary = new SemanticVocabulary(
    lang.relatedness,
    (term) => lang.walker.categoryOf(term) ?? (lang.lexicon.lookup(term)?.curated ? GENERIC : undefined),
  );
  const concepts = {
    relatedness: lang.relatedness,
    walker: lang.walker,
    neighbours: lang.neighbours,
    isCurated: (term: string) =>
      lang.walker.categoryOf(term) !== undefined || lang.lexicon.lookup(term)?.curated !== undefined,
  };
  const keywordBoard = new ScoreBoard();
  const semanticBoard = new ScoreBoard();
  const conceptBoard = new ScoreBoard();
  const read = (label: string) => lang.segmenter.segment(label);

  const upsert = (listing: SearchListing) => void collection.upsert(listing, read);
  const prepare = () => {
    for (; fuzzySynced < collection.terms.length; fuzzySynced++) fuzzy.add(collection.terms[fuzzySynced] ?? '');
    semanticVocabulary.sync(collection);
  };
  for (const listing of listings) upsert(listing);
  prepare();

  const quality = (doc: number) => collection.quality.data[doc] ?? 0;
  const domain = (doc: number) => collection.domains[doc] ?? '';

  return {
    get size() {
      return collection.listedCount;
    },
    upsert,
    prepare,
    remove(domainName) {
      const doc = collection.docOf(domainName);
      return doc === undefined ? false : collection.setListed(doc, false);
    },
    isListed(domainName) {
      const doc = collection.docOf(domainName);
      return doc !== undefined && collection.isListed(doc);
    },
    search(q, options = {}) {
      const mode = options.mode ?? 'hybrid';
      const method = options.fusion ?? 'comb';
      const limit = Math.max(0, Math.floor(options.limit ?? MAX_RESULTS));
      prepare();
      const query = parseQuery(q, lang, fuzzy, (term) => collection.termIds.has(term));

      for (const board of [keywordBoard, semanticBoard, conceptBoard]) {
        board.reserve(collection.domains.length);
        board.clear();
      }
      if (mode !== 'semantic') keywordScores(collection, query, keywordBoard, conceptBoard, CANDIDATES);
      if (mode !== 'keyword') {
        const expansions = expandConcepts(collection, semanticVocabulary, concepts, query);
        semanticScores(collection, query, expansions, semanticBoard, conceptBoard, CANDIDATES);
      }

      const ties = { quality: collection.quality.data, hash: collection.hashes.data, domains: collection.domains };
      const keywordTop = topK(keywordBoard, ties, CANDIDATES);
      const semanticTop = topK(semanticBoard, ties, CANDIDATES);
      const keywordRank = new Map(keywordTop.map((doc, i) => [doc, i + 1]));
      const semanticRank = new Map(semanticTop.map((doc, i) => [doc, i + 1]));

      const exactDomainDoc = query.exactDomain === undefined ? undefined : collection.docOf(query.exactDomain);
      const exactLabelDocs = new Set(query.exactLabels.flatMap((label) => collection.docsWithLabel(label)));
      const candidates = new Set([...keywordTop, ...semanticTop, ...exactLabelDocs]);
      if (exactDomainDoc !== undefined) candidates.add(exactDomainDoc);

      const hits: (SearchHit & { doc: number })[] = [];
      for (const doc of candidates) {
        if (!collection.isListed(doc)) continue;
        const keyword = keywordBoard.get(doc);
        const semantic = semanticBoard.get(doc);
        const relevance =
          mode === 'keyword'
            ? Math.min(1, keyword)
            : mode === 'semantic'
              ? Math.min(1, semantic)
              : fuse(method, {
                  keyword,
                  semantic,
                  keywordRank: keywordRank.get(doc),
                  semanticRank: semanticRank.get(doc),
                });
        const exactDomain = doc === exactDomainDoc;
        const exactLabel = exactLabelDocs.has(doc);
        if (!isShown(keyword, semantic, exactDomain || exactLabel)) continue;
        const score = rerank({ relevance, quality: quality(doc), exactDomain, exactLabel });
        hits.push({
          doc,
          listing: collection.listing(doc),
          score: roundScore(score),
          relevance,
          keyword,
          semantic,
          quality: quality(doc),
        });
      }
      const hash = (doc: number) => collection.hashes.data[doc] ?? 0;
      hits.sort(
        (a, b) =>
          b.score - a.score ||
          quality(b.doc) - quality(a.doc) ||
          hash(a.doc) - hash(b.doc) ||
          (domain(a.doc) < domain(b.doc) ? -1 : 1),
      );
      return hits.slice(0, limit).map(({ doc: _doc, ...hit }) => hit);
    },
  };
}
