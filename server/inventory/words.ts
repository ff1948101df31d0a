// The curated vocabulary the sandbox names are built from and imported names are segmented with.
// Every word is a real English word in lowercase ASCII and belongs to exactly one group, so a
// word alone decides its category. Within each list the commoner, shorter, more sellable words
// come first: the generator reads a word's position as its quality when it prices a name.

export interface CategoryWords {
  /** Describing words that go before a noun (green + leaf + garden). */
  adjectives: readonly string[];
  nouns: readonly string[];
}

/** Category slugs are kebab-case, as in the spec's examples (`food-and-drink`). */
export const CATEGORIES = {
  'food-and-drink': {
    adjectives: ['fresh', 'roasted', 'sweet', 'tasty', 'golden', 'spicy', 'crispy', 'savory', 'organic', 'rustic', 'hearty', 'zesty'],
    nouns: [
      'coffee', 'beans', 'brew', 'roast', 'espresso', 'barista', 'cafe', 'latte', 'bean', 'tea', 'bar', 'bakery', 'bread',
      'kitchen', 'grill', 'pizza', 'taco', 'burger', 'mocha', 'roastery', 'roaster', 'juice', 'wine', 'beer', 'cider',
      'cheese', 'pastry', 'cookie', 'donut', 'bagel', 'spice', 'honey', 'sauce', 'diner', 'bistro', 'pantry', 'recipe',
      'chef', 'brunch', 'dough', 'salad', 'sushi', 'noodle', 'soup', 'grind', 'cup', 'mug', 'kettle', 'harvest',
    ],
  },
  finance: {
    adjectives: ['wise', 'rich', 'lucky', 'savvy', 'solid', 'steady', 'secure', 'frugal', 'thrifty', 'fiscal', 'liquid'],
    nouns: [
      'money', 'cash', 'coin', 'ledger', 'wallet', 'bank', 'budget', 'credit', 'loan', 'fund', 'funds', 'wealth', 'capital',
      'equity', 'invest', 'savings', 'tax', 'pension', 'stock', 'stocks', 'bond', 'trade', 'trader', 'broker', 'vault',
      'asset', 'assets', 'profit', 'income', 'finance', 'mortgage', 'payment', 'pay', 'invoice', 'account', 'dollar',
      'penny', 'mint', 'treasury', 'yield', 'crypto', 'banker', 'insurance',
    ],
  },
  technology: {
    adjectives: ['quantum', 'digital', 'virtual', 'rapid', 'neural', 'robotic', 'binary', 'wireless', 'mobile', 'agile', 'open', 'instant'],
    nouns: [
      'tech', 'code', 'data', 'cloud', 'byte', 'pixel', 'chip', 'robot', 'logic', 'app', 'apps', 'web', 'server', 'stack',
      'signal', 'network', 'device', 'gadget', 'sensor', 'laser', 'matrix', 'vector', 'kernel', 'script', 'coder',
      'software', 'circuit', 'link', 'node', 'grid', 'bit', 'bits', 'compute', 'system', 'systems', 'tool', 'tools',
      'algorithm', 'portal', 'widget', 'socket', 'cache', 'query', 'drone', 'cyber',
    ],
  },
  health: {
    adjectives: ['healthy', 'vital', 'calm', 'quiet', 'fit', 'active', 'mindful', 'natural', 'holistic', 'gentle', 'strong', 'herbal'],
    nouns: [
      'health', 'care', 'clinic', 'doctor', 'nurse', 'dental', 'therapy', 'yoga', 'fitness', 'wellness', 'vitamin',
      'medic', 'remedy', 'heal', 'healing', 'pulse', 'heart', 'body', 'mind', 'spirit', 'sleep', 'diet', 'nutrition',
      'cardio', 'pilates', 'massage', 'pharmacy', 'cure', 'rehab', 'balance', 'breath', 'spine', 'physio', 'recovery',
    ],
  },
  travel: {
    adjectives: ['global', 'exotic', 'coastal', 'tropical', 'nomadic', 'scenic', 'remote', 'sunny', 'faraway'],
    nouns: [
      'travel', 'trip', 'tour', 'tours', 'journey', 'voyage', 'passport', 'ticket', 'flight', 'hotel', 'hostel', 'resort',
      'cruise', 'beach', 'island', 'vacation', 'holiday', 'suitcase', 'luggage', 'map', 'compass', 'destination',
      'getaway', 'escape', 'road', 'route', 'explorer', 'wander', 'roam', 'jet', 'airport', 'villa', 'lodge', 'safari',
      'globe', 'atlas', 'tourist', 'trips',
    ],
  },
  fashion: {
    adjectives: ['chic', 'stylish', 'elegant', 'trendy', 'vintage', 'classic', 'bold', 'sleek', 'casual', 'dapper', 'luxe'],
    nouns: [
      'style', 'fashion', 'wear', 'apparel', 'outfit', 'dress', 'shirt', 'denim', 'jeans', 'boutique', 'closet',
      'wardrobe', 'shoes', 'boots', 'sneaker', 'sneakers', 'tailor', 'fabric', 'thread', 'threads', 'stitch', 'silk',
      'cotton', 'leather', 'jacket', 'scarf', 'hat', 'runway', 'jewel', 'jewelry', 'ring', 'couture', 'socks', 'tee',
    ],
  },
  sports: {
    adjectives: ['athletic', 'speedy', 'fierce', 'mighty', 'swift', 'winning', 'extreme', 'fast'],
    nouns: [
      'sport', 'sports', 'team', 'league', 'score', 'goal', 'ball', 'court', 'field', 'arena', 'stadium', 'coach',
      'player', 'runner', 'racer', 'golf', 'tennis', 'soccer', 'hockey', 'rugby', 'cricket', 'boxing', 'cycling', 'ski',
      'gym', 'match', 'champion', 'trophy', 'medal', 'kick', 'sprint', 'bat', 'skate', 'dunk', 'fan', 'fans', 'marathon',
    ],
  },
  'real-estate': {
    adjectives: ['cozy', 'spacious', 'luxury', 'affordable', 'suburban', 'historic', 'modernist'],
    nouns: [
      'home', 'homes', 'realty', 'estate', 'property', 'condo', 'apartment', 'loft', 'rent', 'rental', 'lease', 'tenant',
      'landlord', 'realtor', 'listing', 'listings', 'acre', 'acres', 'plot', 'cabin', 'cottage', 'manor', 'mansion',
      'suite', 'tower', 'block', 'street', 'avenue', 'key', 'keys', 'door', 'roof', 'porch', 'yard', 'mover', 'movers',
      'housing', 'residence',
    ],
  },
  education: {
    adjectives: ['bright', 'clever', 'curious', 'academic', 'brainy', 'scholarly', 'learned'],
    nouns: [
      'learn', 'school', 'class', 'course', 'tutor', 'teacher', 'student', 'study', 'academy', 'college', 'campus',
      'lesson', 'lessons', 'book', 'books', 'library', 'quiz', 'exam', 'homework', 'grade', 'math', 'science', 'reading',
      'writing', 'language', 'skill', 'skills', 'mentor', 'scholar', 'lecture', 'classroom', 'pencil', 'chalk',
      'notebook', 'knowledge', 'wisdom', 'brain', 'genius', 'teach', 'tutors',
    ],
  },
  'home-and-garden': {
    adjectives: ['green', 'leafy', 'blooming', 'floral', 'shady', 'tidy', 'homely', 'snug'],
    nouns: [
      'garden', 'leaf', 'plant', 'plants', 'flower', 'flowers', 'seed', 'seeds', 'soil', 'bloom', 'rose', 'tulip', 'lawn',
      'hedge', 'tree', 'trees', 'orchard', 'greenhouse', 'herb', 'herbs', 'furniture', 'decor', 'lamp', 'sofa', 'chair',
      'table', 'rug', 'pillow', 'blanket', 'candle', 'bath', 'shower', 'tile', 'brick', 'fence', 'shed', 'patio',
      'backyard', 'gardener', 'compost',
    ],
  },
  pets: {
    adjectives: ['furry', 'loyal', 'playful', 'fluffy', 'cuddly', 'tame', 'frisky'],
    nouns: [
      'pet', 'pets', 'dog', 'dogs', 'puppy', 'cat', 'cats', 'kitten', 'paw', 'paws', 'bark', 'purr', 'tail', 'leash',
      'collar', 'kennel', 'vet', 'groomer', 'bone', 'treat', 'treats', 'fish', 'bird', 'parrot', 'bunny', 'hamster',
      'pony', 'horse', 'saddle', 'aquarium', 'critter', 'whisker', 'whiskers', 'doggy', 'kitty',
    ],
  },
  music: {
    adjectives: ['acoustic', 'sonic', 'melodic', 'rhythmic', 'loud', 'lyrical', 'soulful', 'jazzy', 'harmonic'],
    nouns: [
      'music', 'song', 'songs', 'beat', 'beats', 'melody', 'rhythm', 'tune', 'tunes', 'guitar', 'piano', 'drum', 'drums',
      'bass', 'violin', 'band', 'choir', 'vinyl', 'record', 'records', 'audio', 'sound', 'sounds', 'echo', 'chord',
      'note', 'notes', 'lyric', 'lyrics', 'concert', 'gig', 'stage', 'jazz', 'blues', 'rock', 'opera', 'radio',
      'mixtape', 'playlist', 'harmony', 'tempo',
    ],
  },
  gaming: {
    adjectives: ['epic', 'retro', 'legendary', 'heroic', 'arcane', 'hardcore', 'mythic'],
    nouns: [
      'game', 'games', 'gamer', 'gamers', 'play', 'quest', 'level', 'levels', 'arcade', 'console', 'joystick',
      'controller', 'dungeon', 'dragon', 'knight', 'wizard', 'loot', 'raid', 'guild', 'clan', 'boss', 'puzzle', 'dice',
      'card', 'cards', 'chess', 'token', 'esports', 'realm', 'battle', 'hero', 'heroes', 'sword', 'shield', 'pixels',
    ],
  },
  business: {
    adjectives: ['lean', 'corporate', 'strategic', 'executive', 'reliable', 'premier', 'thriving'],
    nouns: [
      'business', 'company', 'venture', 'ventures', 'startup', 'office', 'desk', 'brand', 'brands', 'marketing', 'sales',
      'lead', 'leads', 'client', 'clients', 'agency', 'consult', 'consulting', 'partner', 'partners', 'growth',
      'strategy', 'plan', 'planner', 'pitch', 'deal', 'hire', 'talent', 'payroll', 'career', 'careers', 'job', 'jobs',
      'meeting', 'launch', 'founder', 'enterprise', 'commerce', 'supply', 'logistics', 'freight', 'cargo', 'factory',
    ],
  },
  automotive: {
    adjectives: ['turbo', 'rugged', 'used', 'sporty', 'diesel'],
    nouns: [
      'auto', 'autos', 'car', 'cars', 'motor', 'motors', 'garage', 'engine', 'wheel', 'wheels', 'tire', 'tires', 'drive',
      'driver', 'ride', 'rides', 'truck', 'trucks', 'van', 'bike', 'motorbike', 'scooter', 'parts', 'repair', 'mechanic',
      'fuel', 'gear', 'brake', 'clutch', 'piston', 'chrome', 'dealer', 'fleet', 'parking', 'tow', 'carwash',
    ],
  },
  beauty: {
    adjectives: ['radiant', 'glowing', 'lovely', 'pretty', 'gorgeous', 'flawless', 'silky', 'velvet'],
    nouns: [
      'beauty', 'glow', 'skin', 'skincare', 'makeup', 'lipstick', 'lash', 'lashes', 'brow', 'brows', 'nail', 'nails',
      'hair', 'salon', 'spa', 'facial', 'lotion', 'serum', 'perfume', 'scent', 'fragrance', 'blush', 'polish', 'curl',
      'curls', 'braid', 'mirror', 'cosmetics', 'soap', 'smile', 'barber',
    ],
  },
  'kids-and-family': {
    adjectives: ['little', 'tiny', 'jolly', 'cheerful', 'sleepy', 'silly', 'merry'],
    nouns: [
      'kids', 'kid', 'baby', 'babies', 'toddler', 'family', 'mom', 'dad', 'parent', 'parents', 'toy', 'toys', 'crib',
      'nursery', 'cradle', 'teddy', 'story', 'stories', 'fairy', 'tale', 'playground', 'lullaby', 'crayon', 'bubble',
      'bubbles', 'balloon', 'sitter', 'nanny', 'twins', 'daycare', 'mommy', 'daddy',
    ],
  },
  outdoors: {
    adjectives: ['wild', 'alpine', 'rocky', 'misty', 'northern', 'hidden', 'wooded', 'snowy'],
    nouns: [
      'camp', 'camping', 'hike', 'hiking', 'trail', 'trails', 'summit', 'peak', 'mountain', 'mountains', 'river', 'lake',
      'forest', 'woods', 'canyon', 'valley', 'ridge', 'cliff', 'cave', 'canoe', 'kayak', 'paddle', 'tent', 'campfire',
      'fishing', 'hunter', 'surf', 'wave', 'waves', 'snow', 'moon', 'pine', 'cedar', 'oak', 'maple', 'bear', 'wolf',
      'fox', 'eagle', 'hawk', 'owl', 'outdoor', 'wilderness',
    ],
  },
  'art-and-design': {
    adjectives: ['creative', 'artistic', 'abstract', 'colorful', 'vivid', 'minimal', 'crafty'],
    nouns: [
      'art', 'arts', 'artist', 'design', 'designer', 'canvas', 'brush', 'palette', 'sketch', 'draw', 'paint', 'gallery',
      'craft', 'crafts', 'pottery', 'clay', 'ink', 'print', 'prints', 'poster', 'frame', 'photo', 'photos', 'lens',
      'camera', 'mural', 'color', 'colors', 'font', 'graphic', 'graphics', 'portrait', 'sculpture', 'easel', 'doodle',
    ],
  },
  media: {
    adjectives: ['viral', 'breaking', 'weekly', 'social', 'candid', 'trending'],
    nouns: [
      'news', 'media', 'press', 'blog', 'post', 'posts', 'magazine', 'journal', 'gazette', 'headline', 'headlines',
      'report', 'reporter', 'podcast', 'channel', 'broadcast', 'film', 'films', 'movie', 'movies', 'cinema', 'video',
      'videos', 'show', 'shows', 'stream', 'streams', 'feed', 'buzz', 'wire', 'column', 'anchor', 'tabloid', 'newsroom',
    ],
  },
  energy: {
    adjectives: ['solar', 'renewable', 'clean', 'efficient', 'sustainable', 'powerful', 'electric'],
    nouns: [
      'energy', 'power', 'wind', 'battery', 'volt', 'volts', 'watt', 'watts', 'charge', 'charger', 'spark', 'current',
      'turbine', 'panel', 'panels', 'light', 'lights', 'heat', 'heating', 'oil', 'gas', 'hydrogen', 'carbon', 'voltage',
      'generator', 'utility', 'sunlight', 'electron',
    ],
  },
  events: {
    adjectives: ['festive', 'joyful', 'romantic', 'formal', 'lavish'],
    nouns: [
      'wedding', 'weddings', 'bride', 'groom', 'party', 'parties', 'event', 'events', 'gala', 'ceremony', 'invite',
      'invitation', 'venue', 'cake', 'catering', 'florist', 'bouquet', 'toast', 'dance', 'celebration', 'gift', 'gifts',
      'ribbon', 'confetti', 'banquet', 'reception',
    ],
  },
} as const satisfies Record<string, CategoryWords>;

export type Category = keyof typeof CATEGORIES;

export const CATEGORY_NAMES = Object.keys(CATEGORIES) as Category[];

/** The category of a name built from no known word. */
export const UNCATEGORISED = 'uncategorised';

/** Generic words that open a name in any category (best + coffee + beans). */
export const MODIFIERS = [
  'best', 'my', 'the', 'get', 'go', 'top', 'true', 'pure', 'smart', 'daily', 'prime', 'just', 'all', 'one', 'first',
  'real', 'good', 'great', 'super', 'ultra', 'mega', 'total', 'urban', 'local', 'modern', 'happy', 'simple', 'your',
  'our', 'new', 'big',
] as const;

/** Generic words that close a name in any category (coffee + hub, brew + house). */
export const SUFFIXES = [
  'hub', 'lab', 'labs', 'house', 'works', 'shop', 'store', 'club', 'zone', 'spot', 'base', 'pro', 'world', 'central',
  'direct', 'online', 'now', 'express', 'place', 'point', 'corner', 'market', 'depot', 'studio', 'center', 'nest', 'box',
  'way', 'land', 'life', 'guide', 'finder', 'deals', 'today', 'mart',
] as const;

export type WordRole = 'adjective' | 'noun' | 'modifier' | 'suffix';

export interface WordInfo {
  word: string;
  role: WordRole;
  /** Absent for the generic modifiers and suffixes. */
  category?: Category;
  /** 0 for the best word of its list, approaching 1 for the last. */
  rank: number;
}

function buildLexicon(): Map<string, WordInfo> {
  const lexicon = new Map<string, WordInfo>();
  const add = (words: readonly string[], role: WordRole, category?: Category) => {
    words.forEach((word, i) => {
      // First entry wins, so a word listed twice keeps its first meaning; the tests forbid that anyway.
      if (!lexicon.has(word)) lexicon.set(word, { word, role, ...(category ? { category } : {}), rank: i / words.length });
    });
  };
  for (const category of CATEGORY_NAMES) {
    add(CATEGORIES[category].nouns, 'noun', category);
    add(CATEGORIES[category].adjectives, 'adjective', category);
  }
  add(MODIFIERS, 'modifier');
  add(SUFFIXES, 'suffix');
  return lexicon;
}

/** Every known word, for segmentation. */
export const LEXICON: ReadonlyMap<string, WordInfo> = buildLexicon();

export const LONGEST_WORD = Math.max(...[...LEXICON.keys()].map((w) => w.length));
