/**
 * The words the name rules know (names.ts): company suffixes, titles, words
 * that tell variants apart, common abbreviations, English nicknames, roman
 * numerals. Lists, not a model: each is short, general, and can be read.
 */

export const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
};

/** Company suffixes: the legal form, which names the same company whatever its spelling. */
export const COMPANY_SUFFIXES = new Set([
  'inc',
  'incorporated',
  'ltd',
  'limited',
  'llc',
  'llp',
  'lp',
  'plc',
  'corp',
  'corporation',
  'co',
  'company',
  'gmbh',
  'ag',
  'kg',
  'se',
  'sa',
  'sas',
  'sarl',
  'srl',
  'spa',
  'bv',
  'nv',
  'oy',
  'ab',
  'as',
  'asa',
  'aps',
  'kk',
  'pty',
  'pvt',
  'pte',
  'ug',
]);

/** Words that often follow a company's name without making it another company ("Acme Labs"). */
export const ORGANIZATION_WORDS = new Set([
  'group',
  'holding',
  'holdings',
  'labs',
  'lab',
  'technologies',
  'technology',
  'tech',
  'systems',
  'solutions',
  'software',
  'industries',
  'enterprises',
  'international',
  'intl',
  'global',
  'worldwide',
  'partners',
  'ventures',
  'studios',
  'studio',
  'networks',
  'services',
  'consulting',
  'hq',
]);

/** What follows a product's or site's name without making it another ("Node.js", "Amazon.com"). */
export const TAILS = new Set(['js', 'io', 'db', 'ai', 'app', 'com', 'org', 'net']);

export const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'professor',
  'sir',
  'dame',
  'lord',
  'lady',
  'rev',
  'hon',
]);

/**
 * Words that tell two variants of one thing apart: "Upper Silver Lake" is not
 * "Silver Lake", nor "Lower Silver Lake".
 */
export const MARKERS = new Set([
  'upper',
  'lower',
  'north',
  'south',
  'east',
  'west',
  'northern',
  'southern',
  'eastern',
  'western',
  'northeast',
  'northwest',
  'southeast',
  'southwest',
  'new',
  'old',
  'big',
  'little',
  'great',
  'greater',
  'lesser',
  'inner',
  'outer',
  'central',
  'mini',
  'micro',
  'pro',
  'max',
  'plus',
  'lite',
  'ultra',
  'air',
  'junior',
  'senior',
  'jr',
  'sr',
  'first',
  'second',
  'third',
  'left',
  'right',
  'front',
  'rear',
  'high',
  'low',
  'early',
  'late',
  'beta',
  'alpha',
  'legacy',
  'classic',
  'next',
]);

/** Words an acronym may leave out ("Bank of America" → BOA or BA). */
export const STOP_WORDS = new Set([
  'of',
  'the',
  'and',
  'for',
  'a',
  'an',
  'in',
  'on',
  'at',
  'de',
  'la',
  'le',
  'du',
  'der',
  'von',
  'van',
]);

/** Common abbreviations of words, both ways. */
const ABBREVIATIONS: [string, string[]][] = [
  ['mt', ['mount', 'mountain']],
  ['st', ['saint', 'street']],
  ['ste', ['sainte', 'suite']],
  ['ft', ['fort']],
  ['pt', ['point', 'port']],
  ['ave', ['avenue']],
  ['rd', ['road']],
  ['blvd', ['boulevard']],
  ['ln', ['lane']],
  ['hwy', ['highway']],
  ['natl', ['national']],
  ['intl', ['international']],
  ['univ', ['university']],
  ['uni', ['university']],
  ['inst', ['institute']],
  ['dept', ['department']],
  ['assoc', ['association', 'associates']],
  ['govt', ['government']],
  ['mgmt', ['management']],
  ['dev', ['development', 'developer']],
  ['eng', ['engineering']],
  ['lab', ['laboratory']],
  ['labs', ['laboratories']],
  ['bros', ['brothers']],
  ['ctr', ['center', 'centre']],
  ['dr', ['drive', 'doctor']],
];
export const ABBREVIATION_OF = new Map<string, Set<string>>();
for (const [short, longs] of ABBREVIATIONS) {
  for (const long of longs) {
    for (const [a, b] of [
      [short, long],
      [long, short],
    ] as const) {
      const set = ABBREVIATION_OF.get(a) ?? new Set<string>();
      set.add(b);
      ABBREVIATION_OF.set(a, set);
    }
  }
}

/** English given names and their common nicknames ("Bob" is "Robert"). */
const NICKNAMES: [string, string[]][] = [
  ['robert', ['bob', 'bobby', 'rob', 'robbie', 'bert']],
  ['william', ['bill', 'billy', 'will', 'willy', 'liam']],
  ['richard', ['dick', 'rick', 'ricky', 'rich']],
  ['james', ['jim', 'jimmy', 'jamie']],
  ['john', ['jack', 'johnny', 'jon']],
  ['jonathan', ['jon', 'jonny']],
  ['michael', ['mike', 'mikey', 'mick']],
  ['elizabeth', ['liz', 'lizzie', 'beth', 'betty', 'eliza', 'libby']],
  ['margaret', ['maggie', 'meg', 'peggy', 'marge', 'greta']],
  ['katherine', ['kate', 'kathy', 'katie', 'kat']],
  ['catherine', ['kate', 'cathy', 'katie', 'cat']],
  ['thomas', ['tom', 'tommy']],
  ['charles', ['charlie', 'chuck', 'chas']],
  ['edward', ['ed', 'eddie', 'ted', 'ned']],
  ['henry', ['hank', 'harry']],
  ['anthony', ['tony']],
  ['joseph', ['joe', 'joey']],
  ['daniel', ['dan', 'danny']],
  ['samuel', ['sam', 'sammy']],
  ['benjamin', ['ben', 'benny']],
  ['alexander', ['alex', 'sasha', 'sandy']],
  ['alexandra', ['alex', 'sasha', 'sandra']],
  ['christopher', ['chris', 'kit']],
  ['christine', ['chris', 'chrissy', 'tina']],
  ['nicholas', ['nick', 'nicky']],
  ['patricia', ['pat', 'patty', 'trish']],
  ['patrick', ['pat', 'paddy']],
  ['susan', ['sue', 'suzy']],
  ['deborah', ['debbie', 'deb']],
  ['jennifer', ['jen', 'jenny']],
  ['rebecca', ['becky', 'becca']],
  ['victoria', ['vicky', 'tori']],
  ['andrew', ['andy', 'drew']],
  ['matthew', ['matt']],
  ['stephen', ['steve']],
  ['steven', ['steve']],
  ['david', ['dave', 'davey']],
  ['peter', ['pete']],
  ['frederick', ['fred', 'freddie']],
  ['albert', ['al', 'bert']],
  ['gregory', ['greg']],
  ['timothy', ['tim']],
  ['douglas', ['doug']],
  ['lawrence', ['larry']],
  ['theodore', ['ted', 'teddy', 'theo']],
  ['francis', ['frank']],
  ['frances', ['fran', 'frannie']],
  ['abigail', ['abby']],
  ['dorothy', ['dot', 'dottie']],
  ['barbara', ['barb', 'babs']],
  ['jacqueline', ['jackie']],
  ['josephine', ['jo', 'josie']],
  ['ronald', ['ron', 'ronnie']],
  ['donald', ['don', 'donnie']],
  ['kenneth', ['ken', 'kenny']],
  ['raymond', ['ray']],
  ['gerald', ['gerry', 'jerry']],
  ['vincent', ['vince']],
  ['zachary', ['zach']],
];
/** Each given name or nickname: the given names it may stand for. */
export const GIVEN_NAMES = new Map<string, Set<string>>();
for (const [name, nicknames] of NICKNAMES) {
  for (const word of [name, ...nicknames]) {
    const set = GIVEN_NAMES.get(word) ?? new Set<string>();
    set.add(name);
    GIVEN_NAMES.set(word, set);
  }
}

/** Whether two different words are one given name ("Bob", "Robert"; "Bob", "Rob"). */
export function sameGivenName(a: string, b: string): boolean {
  const ofA = GIVEN_NAMES.get(a);
  const ofB = GIVEN_NAMES.get(b);
  return !!ofA && !!ofB && [...ofA].some((name) => ofB.has(name));
}

export const ROMAN = /^(ii|iii|iv|vi|vii|viii|ix|xi|xii|xiii|xiv|xv|xvi|xvii|xviii|xix|xx)$/;
const ROMAN_VALUES: Record<string, number> = { i: 1, v: 5, x: 10 };

export function romanValue(roman: string): number {
  let total = 0;
  for (let i = 0; i < roman.length; i++) {
    const value = ROMAN_VALUES[roman[i]!]!;
    const next = ROMAN_VALUES[roman[i + 1] ?? ''] ?? 0;
    total += value < next ? -value : value;
  }
  return total;
}
