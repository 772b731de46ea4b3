/**
 * Which words of an observation to mark as answering the question. The server
 * ranks with its own stemming; this is a light client-side stand-in, so the
 * marks show roughly why a result came back without a round trip: a word is
 * marked when it shares a stem-like prefix with a word of the question.
 */

/** Words that carry no meaning of their own in a question ("when did … start"). */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out ' +
    'over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves ever also tell know ' +
    'anything something get got'
  ).split(' '),
);

/** The shortest shared start that counts as the same word ("prefer" ~ "preference"). */
export const MIN_PREFIX = 4;

/**
 * A run of letters or digits, with inner apostrophes ("Maya's", "don't"). The
 * flags make it stateful: use it only through `words` and `highlightParts`.
 */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** 'Maya’s' → 'maya', 'Café' → 'cafe': lower case, no accents, no possessive. */
export function normalizeWord(word: string): string {
  return word
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]s$/, '');
}

/** 'started' → 'start', 'jobs' → 'job': one common ending off, keeping at least 3 letters. */
function stem(word: string): string {
  for (const ending of ['ing', 'ed', 'es', 's']) {
    if (word.endsWith(ending) && word.length - ending.length >= 3) {
      return word.slice(0, -ending.length);
    }
  }
  return word;
}

/**
 * Whether two normalised words read as the same word: equal, equal once one
 * common ending is off ('started' ~ 'starting'), or the shorter starts the
 * longer and is at least MIN_PREFIX long ('prefer' ~ 'preferences').
 */
export function wordsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  if (stem(a) === stem(b)) return true;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return shorter.length >= MIN_PREFIX && longer.startsWith(shorter);
}

/** The meaningful words of a question, normalised, each once, in order. */
export function queryWords(query: string): string[] {
  const seen = new Set<string>();
  for (const match of query.matchAll(WORD)) {
    const word = normalizeWord(match[0]);
    if (word && !STOP_WORDS.has(word)) seen.add(word);
  }
  return [...seen];
}

export interface TextPart {
  text: string;
  /** Whether this part is a word of the text that matches a word of the question. */
  match: boolean;
}

/**
 * `text` cut into parts, each marked or not, which joined give `text` back
 * unchanged. Only whole words are marked, and never stop words.
 */
export function highlightParts(text: string, words: readonly string[]): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  if (words.length > 0) {
    for (const found of text.matchAll(WORD)) {
      const word = normalizeWord(found[0]);
      if (STOP_WORDS.has(word) || !words.some((asked) => wordsMatch(asked, word))) continue;
      if (found.index > last) parts.push({ text: text.slice(last, found.index), match: false });
      parts.push({ text: found[0], match: true });
      last = found.index + found[0].length;
    }
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}
