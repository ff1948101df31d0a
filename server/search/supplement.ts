// WordNet 3.1 was frozen before a few words of the sandbox vocabulary were common (barista,
// crypto, esports). These entries give each a definition in WordNet's own style and its nearest
// WordNet words, so the semantic retriever reads them like any other word. They describe the
// words, not any query: nothing here names a relevance judgement.
export interface SupplementEntry {
  gloss: string;
  /** WordNet lemmas that mean nearly the same. */
  near: readonly string[];
}

export const SUPPLEMENT: Readonly<Record<string, SupplementEntry>> = {
  barista: {
    gloss: 'a person who makes and serves coffee and espresso drinks in a coffee shop',
    near: ['bartender', 'coffee_shop'],
  },
  roastery: { gloss: 'a place where coffee beans are roasted', near: ['roaster', 'coffee'] },
  crypto: {
    gloss: 'digital money such as bitcoin whose transactions are recorded on a shared ledger',
    near: ['currency', 'money', 'coin'],
  },
  app: { gloss: 'an application program for a phone or computer', near: ['application', 'software', 'program'] },
  cyber: {
    gloss: 'relating to computers, computer networks and the internet',
    near: ['computer', 'internet', 'network'],
  },
  cardio: {
    gloss: 'exercise such as running or cycling that raises the heart rate',
    near: ['exercise', 'aerobics', 'cardiovascular'],
  },
  rehab: {
    gloss: 'therapy to restore health and strength after an injury, an illness or an addiction',
    near: ['rehabilitation', 'therapy', 'recovery'],
  },
  physio: {
    gloss: 'treatment of injury by exercise and massage; a physical therapist',
    near: ['physiotherapy', 'physiotherapist', 'therapy'],
  },
  groomer: {
    gloss: 'a person who washes, brushes and trims the coats of dogs, cats and other pets',
    near: ['dog', 'pet', 'grooming'],
  },
  mixtape: { gloss: 'a compilation of songs recorded one after another', near: ['compilation', 'song', 'music'] },
  gamer: { gloss: 'a person who plays video games', near: ['player', 'video_game', 'game'] },
  esports: {
    gloss: 'video games played competitively as a spectator sport',
    near: ['video_game', 'sport', 'tournament'],
  },
  carwash: { gloss: 'a business where cars are washed', near: ['car', 'wash'] },
  turbo: {
    gloss: 'a turbocharger; a fan driven by exhaust that forces more air into an engine for more power',
    near: ['turbocharger', 'engine'],
  },
  media: {
    gloss: 'the means of mass communication: newspapers, radio, television and the internet',
    near: ['mass_media', 'press', 'broadcasting'],
  },
  trending: { gloss: 'currently popular and much talked about online', near: ['popular', 'fashionable', 'viral'] },
};
