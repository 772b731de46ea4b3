/**
 * Two entity names compared, as a person would: pure functions, no database
 * (docs/consolidation.md, "Names"). `analyseName` reads a name once into its
 * parts; `compareNames` says how alike two names are and why (and
 * blocking.ts which other names are worth comparing it with). Every function takes
 * names one at a time, so an entity with several names (aliases) is compared
 * name by name (`compareNameLists`).
 */

import { ALIASES_MAX, ENTITY_NAME_MAX } from '@engram/shared';
import {
  ABBREVIATION_OF,
  COMPANY_SUFFIXES,
  MARKERS,
  ORGANIZATION_WORDS,
  ROMAN,
  romanValue,
  sameGivenName,
  SPECIAL_LETTERS,
  STOP_WORDS,
  TAILS,
  TITLES,
} from './name-words.js';
import { editDistance, trigramSimilarity } from './letters.js';

export { EDIT_COMPARED_MAX, editDistance, trigramSimilarity } from './letters.js';

/** What kind of thing the names are of: person names and company names follow rules of their own. */
export type NameKind = 'person' | 'organization' | 'other';

export interface NameForm {
  raw: string;
  /** Lower case, white space collapsed. */
  lowered: string;
  /** `lowered` without accents. */
  unaccented: string;
  /** `unaccented` with punctuation turned into spaces (qualifiers in parentheses included). */
  folded: string;
  /** `folded` without spaces. */
  allCompact: string;
  /**
   * The words that name the thing: folded, without a leading title ("Dr"),
   * a leading "the", company suffixes ("Inc", "GmbH"), numbers and
   * qualifiers in parentheses.
   */
  words: string[];
  /** `words` run together. */
  compact: string;
  /** Numbers in the name ("v2" → 2, "3.0" → 3, a roman numeral after the first word). */
  numbers: string[];
  /** Words in parentheses or brackets: "apple (fruit)" → fruit. */
  qualifiers: string[];
  /** Company suffixes taken off the end. */
  suffixes: string[];
  /** Titles taken off the front. */
  titles: string[];
  /** A numeronym ("k8s": first letter, count of letters between, last letter), when the name is one. */
  numeronym?: string;
  /** A one-word name's parts as its capitals show them ("JavaScript" → java, script), for acronyms. */
  camel?: string[];
  /** The name is longer than NAME_ANALYSED_MAX: its parts are those of its beginning. */
  cut?: true;
}

/** Characters of a name read into its parts: the longest name the write doors take (ENTITY_NAME_MAX). */
export const NAME_ANALYSED_MAX = ENTITY_NAME_MAX;
/** Words of a name compared at most. */
export const NAME_WORDS_MAX = 64;
/** An entity's aliases compared at most: as many as the write doors let it have. */
export const ALIASES_COMPARED_MAX = ALIASES_MAX;

/** "3.0" → "3", "007" → "7", "2.10" → "2.10". */
function normalNumber(text: string): string {
  const parts = text.split('.').map((part) => part.replace(/^0+(?=\d)/, ''));
  while (parts.length > 1 && /^0+$/.test(parts.at(-1)!)) parts.pop();
  return parts.join('.');
}

/** Lower case without accents ("José" → "jose", "Straße" → "strasse"). */
export function unaccent(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøđðþłı]/g, (letter) => SPECIAL_LETTERS[letter] ?? letter);
}

/** Punctuation to spaces, keeping what names a language ("C++" → "cpp", "C#" → "csharp") and "AT&T" whole. */
function foldPunctuation(text: string): string {
  return text
    .replace(/\+\+/g, 'pp')
    .replace(/(\p{L})#/gu, '$1sharp')
    .replace(/(\p{L})&(\p{L})/gu, '$1$2')
    .replace(/&/g, ' and ')
    .replace(/\+/g, ' plus ')
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const QUALIFIER = /[([{]([^)\]}]*)[)\]}]?/g;

/**
 * A name read into its parts, once. Only its first NAME_ANALYSED_MAX
 * characters and NAME_WORDS_MAX words: rows stored before the write doors'
 * limits may hold longer names, and the work stays bounded whatever they hold.
 */
export function analyseName(raw: string): NameForm {
  const cut = raw.length > NAME_ANALYSED_MAX;
  const head = cut ? raw.slice(0, NAME_ANALYSED_MAX).replace(/[\uD800-\uDBFF]$/, '') : raw;
  const lowered = head.toLowerCase().replace(/\s+/g, ' ').trim();
  const unaccented = unaccent(lowered);
  const folded = foldPunctuation(unaccented);
  const allCompact = folded.replaceAll(' ', '');

  const qualifiers = [...unaccented.matchAll(QUALIFIER)]
    .flatMap((match) => foldPunctuation(match[1] ?? '').split(' '))
    .filter(Boolean)
    .sort();
  const main = unaccented.replace(QUALIFIER, ' ');

  const numbers: string[] = [];
  const withoutNumbers = main.replace(/\d+(?:\.\d+)*(?:st|nd|rd|th)?/g, (match) => {
    numbers.push(normalNumber(match.replace(/(st|nd|rd|th)$/, '')));
    return ' ';
  });
  const mainFolded = foldPunctuation(main);
  const single = mainFolded.split(' ');
  const numeronym =
    single.length === 1 && /^\p{L}\d+\p{L}$/u.test(single[0]!) ? single[0] : undefined;

  let words = numeronym ? [numeronym] : foldPunctuation(withoutNumbers).split(' ').filter(Boolean);
  if (numeronym) numbers.length = 0;
  // "v2": the letter that marks a version is no word of the name.
  words = words.filter((word, index) => !(word === 'v' && /v\s*\d/.test(main) && index > 0));

  // Initials written with dots or spaces ("U.S.A.", "u s a"): one word.
  if (words.length > 1 && words.every((word) => word.length === 1)) words = [words.join('')];

  const titles: string[] = [];
  while (words.length > 1 && TITLES.has(words[0]!)) titles.push(words.shift()!);
  if (words.length > 1 && words[0] === 'the') words.shift();

  const suffixes: string[] = [];
  for (;;) {
    if (words.length < 2) break;
    const last = words.at(-1)!;
    if (COMPANY_SUFFIXES.has(last)) {
      suffixes.unshift(words.pop()!);
      if (last === 'co' && words.length > 1 && words.at(-1) === 'and') words.pop();
      continue;
    }
    // Spelled with dots: "S.A.", "L.L.C." (single letters in a row).
    let start = words.length;
    while (start > 1 && words[start - 1]!.length === 1) start -= 1;
    const letters = words.slice(start).join('');
    if (start < words.length - 1 && COMPANY_SUFFIXES.has(letters)) {
      words.splice(start);
      suffixes.unshift(letters);
      continue;
    }
    break;
  }

  // Roman numerals after the first word are numbers ("Henry VIII").
  words = words.filter((word, index) => {
    if (index === 0 || !ROMAN.test(word)) return true;
    numbers.push(String(romanValue(word)));
    return false;
  });
  numbers.sort();
  words = words.slice(0, NAME_WORDS_MAX);

  const form: NameForm = {
    raw,
    lowered,
    unaccented,
    folded,
    allCompact,
    words,
    compact: words.join(''),
    numbers,
    qualifiers,
    suffixes,
    titles,
  };
  if (numeronym) form.numeronym = numeronym;
  if (cut) form.cut = true;
  const token = head.trim();
  if (words.length === 1 && /^\p{L}+$/u.test(token)) {
    const camel = token.split(/(?<=\p{Ll})(?=\p{Lu})/u).map((part) => unaccent(part.toLowerCase()));
    if (camel.length >= 2) form.camel = camel;
  }
  return form;
}

/** A name's words as trigrams compare them (`trigramSimilarity`). */
export function trigramText(form: NameForm): string {
  return form.words.length > 0 ? form.words.join(' ') : form.folded;
}

/** The initials of the words, with and without the small words an acronym may skip. */
export function acronymsOf(words: string[]): string[] {
  const all = words.map((word) => word[0]).join('');
  const kept = words.filter((word) => !STOP_WORDS.has(word));
  const skipping = kept.map((word) => word[0]).join('');
  return kept.length >= 2 && skipping !== all ? [all, skipping] : [all];
}

/** How alike two names are: a score in [0, 1] and the reason a person reads. */
export interface NameMatch {
  score: number;
  reason: string;
  /**
   * The names disagree (other words, other numbers, other qualifiers): no
   * other evidence may lift the pair above this.
   */
  cap?: number;
  /** The one word a name shares with a longer name ("Ada" in "Ada Lovelace"): how common it is weighs. */
  part?: string;
}

type WordMatch = 'equal' | 'abbreviation' | 'nickname' | 'initial' | 'typo' | 'shortened';

const QUALITY: Record<WordMatch, number> = {
  equal: 3,
  abbreviation: 2.5,
  nickname: 2.5,
  initial: 2,
  typo: 2,
  shortened: 1.5,
};

/**
 * How many slips of the keyboard tell two spellings apart (of a word, or of
 * a one-word name), when that is a typo at all: one edit between words of
 * four and five letters or more, two between words of nine or more. Words
 * that tell variants apart ("upper", "lower") are never typos of another.
 */
function typoDistance(a: string, b: string): 1 | 2 | undefined {
  const shorter = Math.min(a.length, b.length);
  if (shorter < 4 || Math.max(a.length, b.length) < 5) return undefined;
  if (MARKERS.has(a) || MARKERS.has(b)) return undefined;
  const distance = editDistance(a, b, 2);
  if (distance === 1) return 1;
  if (distance === 2 && shorter >= 9) return 2;
  return undefined;
}

/** A typo's score: surer in a long word, less sure in the first letter, which people seldom mistype. */
function typoMatch(a: string, b: string, distance: 1 | 2): NameMatch {
  if (distance === 2) return { score: 0.45, reason: TWO_TYPOS };
  const score = Math.max(a.length, b.length) >= 7 ? 0.85 : 0.68;
  return { score: a[0] === b[0] ? score : score - 0.15, reason: ONE_TYPO };
}

function wordMatch(a: string, b: string): WordMatch | undefined {
  if (a === b) return 'equal';
  if (MARKERS.has(a) || MARKERS.has(b)) return undefined;
  if (ABBREVIATION_OF.get(a)?.has(b)) return 'abbreviation';
  if (sameGivenName(a, b)) return 'nickname';
  if ((a.length === 1 && b.startsWith(a)) || (b.length === 1 && a.startsWith(b))) return 'initial';
  if (typoDistance(a, b)) return 'typo';
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  // "Chris" for "Christopher"; not "Ada" for "Adam" nor "Daniel" for "Danielle", other names.
  if (short.length >= 3 && long.length - short.length >= 3 && long.startsWith(short)) {
    return 'shortened';
  }
  return undefined;
}

interface Alignment {
  quality: number;
  matches: { kind: WordMatch; short: string; long: string; longIndex: number }[];
}

/**
 * The best order-keeping matching of `short`'s words with `long`'s: a table
 * of qualities and the step that led to each cell, walked back once, over
 * at most NAME_WORDS_MAX words of each.
 */
function align(shortWords: string[], longWords: string[]): Alignment {
  const short = shortWords.slice(0, NAME_WORDS_MAX);
  const long = longWords.slice(0, NAME_WORDS_MAX);
  const width = long.length + 1;
  const quality = new Float64Array((short.length + 1) * width);
  // 0: from above (the short word unmatched), 1: from the left, else the match's kind.
  const step: (0 | 1 | WordMatch)[] = new Array<0 | 1 | WordMatch>(quality.length).fill(0);
  for (let i = 1; i <= short.length; i++) {
    for (let j = 1; j <= long.length; j++) {
      const cell = i * width + j;
      let best = quality[cell - width]!;
      let from: 0 | 1 | WordMatch = 0;
      if (quality[cell - 1]! > best) {
        best = quality[cell - 1]!;
        from = 1;
      }
      const kind = wordMatch(short[i - 1]!, long[j - 1]!);
      if (kind && quality[cell - width - 1]! + QUALITY[kind] > best) {
        best = quality[cell - width - 1]! + QUALITY[kind];
        from = kind;
      }
      quality[cell] = best;
      step[cell] = from;
    }
  }
  const matches: Alignment['matches'] = [];
  for (let i = short.length, j = long.length; i > 0 && j > 0;) {
    const from = step[i * width + j]!;
    if (from === 0) i -= 1;
    else if (from === 1) j -= 1;
    else {
      matches.push({ kind: from, short: short[i - 1]!, long: long[j - 1]!, longIndex: j - 1 });
      i -= 1;
      j -= 1;
    }
  }
  return { quality: quality[quality.length - 1]!, matches: matches.reverse() };
}

const SAME_BUT_FOR_CASE = 'same name but for case and spacing';
const SAME_BUT_FOR_ACCENTS = 'same name but for accents';
const SAME_BUT_FOR_PUNCTUATION = 'same name but for punctuation and spacing';
const SAME_BUT_FOR_SUFFIX = 'same name but for a company suffix';
const SAME_BUT_FOR_TITLE = 'same name but for a title';
const ABBREVIATION = 'one name is an abbreviation of the other';
const SHORTENED = 'one name is a shortened form of the other';
const PART = 'one name is part of the other';
const NICKNAME = 'one name uses a nickname';
const ONE_TYPO = 'names differ by one typo';
const TWO_TYPOS = 'names differ by two typos';

/** The names' words compared, once their spellings differ by more than case, accents and punctuation. */
function compareWords(a: NameForm, b: NameForm, kind: NameKind): NameMatch | undefined {
  if (!a.compact || !b.compact) return undefined;
  if (a.words.join(' ') === b.words.join(' ')) {
    if (a.suffixes.join(' ') !== b.suffixes.join(' ')) {
      return { score: 0.92, reason: SAME_BUT_FOR_SUFFIX };
    }
    if (a.titles.join(' ') !== b.titles.join(' '))
      return { score: 0.9, reason: SAME_BUT_FOR_TITLE };
    return { score: 0.93, reason: SAME_BUT_FOR_PUNCTUATION };
  }
  if (a.compact === b.compact) return { score: 0.93, reason: SAME_BUT_FOR_PUNCTUATION };
  if ([...a.words].sort().join(' ') === [...b.words].sort().join(' ')) {
    return { score: 0.88, reason: 'same words in another order' };
  }
  const [short, long] = a.words.length <= b.words.length ? [a, b] : [b, a];
  if (short.words.length === 1 && long.words.length === 1) return compareLetters(short, long);

  let alignment = align(short.words, long.words);
  // "Lovelace, Ada" against "Ada Lovelace" keeps no order.
  const reversed = align([...short.words].reverse(), long.words);
  if (reversed.quality > alignment.quality) alignment = reversed;
  const { matches } = alignment;
  if (matches.length === 0) return compareLetters(short, long);

  const matchedLong = new Set(matches.map((match) => match.longIndex));
  const unmatchedShort = short.words.length - matches.length;
  const extra = long.words.filter((_, index) => !matchedLong.has(index));
  const inexact = matches.filter((match) => match.kind !== 'equal');
  const exact = matches.length - inexact.length;

  if (unmatchedShort > 0) {
    const theirs = short.words.find((word) => !matches.some((match) => match.short === word));
    return {
      score: 0.12,
      reason: `names differ: "${theirs}" and "${extra[0] ?? ''}"`,
      cap: 0.3,
    };
  }

  if (extra.length === 0) {
    const kinds = new Set(inexact.map((match) => match.kind));
    let match: NameMatch;
    if (kinds.size === 1 && kinds.has('typo')) {
      const [typo] = inexact;
      match =
        inexact.length === 1
          ? typoMatch(typo!.short, typo!.long, typoDistance(typo!.short, typo!.long)!)
          : { score: 0.45, reason: TWO_TYPOS };
    } else if (kinds.size === 1 && kinds.has('abbreviation')) {
      match = { score: 0.9, reason: ABBREVIATION };
    } else if (kinds.size === 1 && kinds.has('nickname')) {
      match = { score: exact > 0 ? 0.84 : 0.6, reason: NICKNAME };
    } else if (kinds.size === 1 && kinds.has('initial')) {
      match = { score: exact > 0 ? 0.86 : 0.6, reason: ABBREVIATION };
    } else if (kinds.size === 1 && kinds.has('shortened')) {
      match = { score: 0.72, reason: SHORTENED };
    } else {
      // Mixed: an initial and a typo, say. Each weakens the other.
      const reason = kinds.has('typo')
        ? ONE_TYPO
        : kinds.has('shortened')
          ? SHORTENED
          : ABBREVIATION;
      match = { score: 0.6 - 0.05 * (inexact.length - 2), reason };
    }
    return match;
  }

  // Every word of the shorter name is in the longer one, which says more.
  const marker = extra.find((word) => MARKERS.has(word));
  const lastMatched = Math.max(...matchedLong);
  if (
    kind !== 'person' &&
    inexact.length === 0 &&
    extra.every((word) => TAILS.has(word)) &&
    long.words.every((word, index) => index <= lastMatched || TAILS.has(word))
  ) {
    return { score: 0.85, reason: SHORTENED };
  }
  if (marker) return { score: 0.2, reason: `only one name says "${marker}"`, cap: 0.3 };
  if (kind === 'organization' && extra.every((word) => ORGANIZATION_WORDS.has(word))) {
    return { score: 0.85 - 0.08 * inexact.length, reason: SAME_BUT_FOR_SUFFIX };
  }
  const penalty = 0.08 * inexact.length;
  if (short.words.length === 1) {
    const match: NameMatch = {
      score: (kind === 'person' ? 0.62 : 0.42) - penalty,
      reason: PART,
    };
    if (inexact.length === 0) match.part = short.words[0]!;
    return match;
  }
  const first = Math.min(...matchedLong);
  const last = Math.max(...matchedLong);
  const inside = long.words.every(
    (_, index) => matchedLong.has(index) || (index > first && index < last),
  );
  const score = kind === 'person' ? 0.78 : inside ? 0.6 : 0.45;
  return { score: score - penalty, reason: PART };
}

/** Two names of one word each (or none in common): their letters compared. */
function compareLetters(short: NameForm, long: NameForm): NameMatch | undefined {
  const a = short.compact;
  const b = long.compact;
  if (!a || !b) return undefined;
  const acronym = acronymMatch(short, long) ?? acronymMatch(long, short);
  if (acronym) return acronym;
  for (const [n, full] of [
    [short.numeronym, b],
    [long.numeronym, a],
  ] as const) {
    if (n && full.length >= 4 && !/\d/.test(full)) {
      const expected = `${full[0]}${full.length - 2}${full.at(-1)}`;
      if (n === expected) return { score: 0.82, reason: ABBREVIATION };
    }
  }
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  if (s.length >= 3 && l.startsWith(s) && short.words.length + long.words.length === 2) {
    // A short tail dropped ("PostgreSQL", "MongoDB") shortens a name; a word
    // added ("JavaScript", "TypeScript") names another thing.
    const ratio = s.length / l.length;
    return l.length - s.length <= 3 || ratio >= 0.75
      ? { score: 0.45 + 0.45 * ratio, reason: SHORTENED }
      : { score: 0.15 + 0.3 * ratio, reason: 'one name starts with the other', cap: 0.35 };
  }
  const distance = typoDistance(a, b);
  if (distance) return typoMatch(a, b, distance);
  const similarity = trigramSimilarity(trigramText(short), trigramText(long));
  if (similarity >= 0.55) return { score: 0.2 + 0.4 * similarity, reason: 'similar names' };
  return undefined;
}

/** `short` is one word (or initials) that are the initials of `long`'s words (or of its parts, "JavaScript"). */
function acronymMatch(short: NameForm, long: NameForm): NameMatch | undefined {
  const parts = long.words.length >= 2 ? long.words : (long.camel ?? []);
  if (short.words.length !== 1 || parts.length < 2) return undefined;
  const word = short.words[0]!;
  if (word.length < 2 || word.length > 6) return undefined;
  return acronymsOf(parts).includes(word) ? { score: 0.8, reason: ABBREVIATION } : undefined;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * How alike two names are, best first: the same but for case, accents or
 * punctuation; then numbers and qualifiers, which tell variants apart; then
 * the words (a company suffix, a title, another order, an initial, an
 * abbreviation, a typo, a part of the other name); then the letters (an
 * acronym, a shortened form, edit distance, trigrams). Undefined when
 * nothing in the names suggests one thing.
 */
export function compareNames(
  a: NameForm,
  b: NameForm,
  kind: NameKind = 'other',
): NameMatch | undefined {
  // A name cut short is like another only when the whole of both is, but for case.
  if (a.cut || b.cut) {
    return a.raw.toLowerCase() === b.raw.toLowerCase()
      ? { score: 0.97, reason: SAME_BUT_FOR_CASE }
      : undefined;
  }
  if (a.lowered === b.lowered) return { score: 0.97, reason: SAME_BUT_FOR_CASE };
  // Names of symbols alone (emoji, punctuation) fold to nothing: only case could tell them alike.
  if (!a.folded || !b.folded) return undefined;
  if (a.unaccented === b.unaccented) return { score: 0.96, reason: SAME_BUT_FOR_ACCENTS };
  if (a.folded === b.folded || a.allCompact === b.allCompact) {
    return { score: 0.95, reason: SAME_BUT_FOR_PUNCTUATION };
  }
  if (a.numbers.length > 0 && b.numbers.length > 0 && !sameList(a.numbers, b.numbers)) {
    return {
      score: 0.08,
      reason: `different numbers (${a.numbers.join(' ')} and ${b.numbers.join(' ')})`,
      cap: 0.2,
    };
  }
  if (a.qualifiers.length > 0 && b.qualifiers.length > 0 && !sameList(a.qualifiers, b.qualifiers)) {
    return {
      score: 0.08,
      reason: `different qualifiers (${a.qualifiers.join(' ')} and ${b.qualifiers.join(' ')})`,
      cap: 0.2,
    };
  }
  const match = compareWords(a, b, kind);
  if (!match) return undefined;
  // One name says what the other does not: another version, another sense.
  const number =
    a.numbers.length !== b.numbers.length ? [...a.numbers, ...b.numbers][0] : undefined;
  if (number !== undefined) {
    return {
      score: Math.min(match.score, 0.4),
      reason: `only one name has a number (${number})`,
      cap: 0.45,
    };
  }
  const qualifier =
    a.qualifiers.length !== b.qualifiers.length ? [...a.qualifiers, ...b.qualifiers].join(' ') : '';
  if (qualifier) {
    return {
      score: Math.min(match.score, 0.3),
      reason: `only one name is qualified (${qualifier})`,
      cap: 0.35,
    };
  }
  return match;
}

/** The best match between any name of one entity and any of the other's (an entity's name and aliases). */
export function compareNameLists(
  a: NameForm[],
  b: NameForm[],
  kind: NameKind = 'other',
): NameMatch | undefined {
  let best: NameMatch | undefined;
  for (const x of a) {
    for (const y of b) {
      const match = compareNames(x, y, kind);
      if (match && (!best || match.score > best.score)) best = match;
    }
  }
  return best;
}
