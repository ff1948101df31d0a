// The language resources every index shares: WordNet, the segmentation word list built from it,
// the segmenter and the relatedness model. Built once per process, on first use (about a second),
// and read-only afterwards, so any number of indexes and environments can use them.
import { buildLexicon, type Lexicon } from './lexicon.ts';
import { createRelatedness, type Relatedness } from './relatedness.ts';
import { loadNeighbours, type WordNeighbours } from './neighbours.ts';
import { createSegmenter, type Segmenter } from './segment.ts';
import { createWalker, type Walker } from './walk.ts';
import { wordNet, type WordNet } from './wordnet.ts';

export interface Language {
  wordnet: WordNet;
  lexicon: Lexicon;
  segmenter: Segmenter;
  relatedness: Relatedness;
  walker: Walker;
  /** Nearest sandbox words of words outside the vocabulary, from static word embeddings. */
  neighbours: WordNeighbours;
}

let shared: Language | undefined;

export function language(): Language {
  if (!shared) {
    const wordnet = wordNet();
    const lexicon = buildLexicon(wordnet);
    shared = {
      wordnet,
      lexicon,
      segmenter: createSegmenter(lexicon, wordnet),
      relatedness: createRelatedness(wordnet, lexicon),
      walker: createWalker(wordnet, lexicon),
      neighbours: loadNeighbours(),
    };
  }
  return shared;
}
