/**
 * Recall's ranking rules (decision 020), free of SQL so they can be read and
 * tested on their own. The database finds the candidates and scores their
 * words (BM25 with binary term frequency, the entity's name as a second
 * field); these rules weigh the terms, pick which ones find candidates,
 * and order what comes back.
 */

/** BM25's term-frequency saturation and length normalisation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** A word in the entity's name counts this much of one in the observation. */
export const NAME_FIELD_WEIGHT = 0.6;

/**
 * Past this many matches in an account a word is common: counting further
 * would cost a read per match, and its weight is near the floor anyway.
 */
export const COMMON_WORD_MATCHES = 2_000;

/** The most observations one recall scores (all words' matches, rarest words first). */
export const CANDIDATE_BUDGET = 4_000;

/** The most words of a question recall reads. */
export const QUERY_WORDS_MAX = 32;

/** Of the candidates the database scores, how many the final order looks at. */
export const RESCORED_MAX = 200;

/** A result must carry this share of the question's weight… */
export const MIN_COVERAGE = 0.2;
/** …and score at least this share of the best result. */
export const MIN_SHARE_OF_BEST = 0.25;

/** Observations of entities related to one the question names rank a little higher. */
export const NEIGHBOUR_BOOST = 0.1;
/** A question about time prefers observations that carry a date. */
export const DATE_BOOST = 0.25;

export interface TermWeight {
  lexeme: string;
  /** How many of the account's observations hold it (at most COMMON_WORD_MATCHES). */
  matches: number;
  /** BM25's inverse document frequency. */
  weight: number;
}

/** BM25's inverse document frequency of a word held by `matches` of `total` observations. */
export function inverseFrequency(matches: number, total: number): number {
  const n = Math.max(total, matches);
  return Math.log(1 + (n - matches + 0.5) / (matches + 0.5));
}

export function weighTerms(
  counts: { lexeme: string; matches: number }[],
  total: number,
): TermWeight[] {
  return counts.map(({ lexeme, matches }) => ({
    lexeme,
    matches,
    weight: inverseFrequency(matches, total),
  }));
}

/**
 * The words that find candidates: the rarest first, while their matches fit
 * the budget (always at least the rarest, so a question of common words still
 * finds something). The others still score the candidates they match.
 */
export function probeTerms(terms: TermWeight[]): TermWeight[] {
  const found = terms.filter((term) => term.matches > 0).sort((a, b) => a.matches - b.matches);
  const probe: TermWeight[] = [];
  let rows = 0;
  for (const term of found) {
    if (probe.length > 0 && rows + term.matches > CANDIDATE_BUDGET) break;
    probe.push(term);
    rows += term.matches;
  }
  return probe;
}

/** A word as a one-word tsquery (quoted, so any character in it is literal). */
export function lexemeQuery(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** Any of the words, as one tsquery. */
export function anyOf(terms: { lexeme: string }[]): string {
  return terms.map((term) => lexemeQuery(term.lexeme)).join(' | ');
}

const TIME_QUESTION =
  /\b(when|date|dates|day|days|week|weeks|month|months|year|years|ago|since|until|how long|what time|birthday|anniversary)\b/i;

const MONTHS =
  'jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?';
const WEEKDAYS = '(mon|tues|wednes|thurs|fri|satur|sun)day';
const CARRIES_DATE = new RegExp(
  [
    `\\b(${MONTHS})\\b`,
    `\\b${WEEKDAYS}s?\\b`,
    '\\b(19|20)\\d{2}\\b',
    '\\b\\d{1,2}[/.-]\\d{1,2}([/.-]\\d{2,4})?\\b',
    '\\b(yesterday|today|tonight|tomorrow|ago|weekend)\\b',
    '\\b(last|next|this|past) (week|month|year|summer|winter|spring|fall|autumn)\\b',
  ].join('|'),
  'i',
);

/** Whether a question asks about time ("When did…", "what month…", "how long ago…"). */
export const asksAboutTime = (question: string) => TIME_QUESTION.test(question);

/** Whether an observation says when something happened. */
export const carriesDate = (text: string) => CARRIES_DATE.test(text);

export interface ScoredCandidate {
  id: string;
  content: string;
  createdAt: Date;
  entityId: string;
  /** BM25 over the observation's words and its entity's name. */
  score: number;
  /** The share of the question's weight it matched, 0–1. */
  coverage: number;
}

/**
 * The final order: the database's score, raised for observations of entities
 * next to the ones the question names and, for questions about time, for
 * observations that carry a date; recency breaks ties. Results below the
 * floor (too little of the question matched, or far behind the best) are
 * dropped, so a question nothing answers gets few or no results.
 */
export function rankCandidates<T extends ScoredCandidate>(
  candidates: T[],
  context: { question: string; neighbours: ReadonlySet<string> },
  limit: number,
): (T & { score: number })[] {
  const aboutTime = asksAboutTime(context.question);
  const rescored = candidates
    .filter((candidate) => candidate.coverage >= MIN_COVERAGE)
    .map((candidate) => {
      let factor = 1;
      if (context.neighbours.has(candidate.entityId)) factor += NEIGHBOUR_BOOST;
      if (aboutTime && carriesDate(candidate.content)) factor += DATE_BOOST;
      return { ...candidate, score: candidate.score * factor };
    })
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.createdAt.getTime() - a.createdAt.getTime() ||
        (a.id < b.id ? -1 : 1),
    );
  const best = rescored[0]?.score ?? 0;
  return rescored
    .filter((candidate) => candidate.score >= best * MIN_SHARE_OF_BEST)
    .slice(0, limit)
    .map((candidate) => ({ ...candidate, score: Math.round(candidate.score * 1000) / 1000 }));
}
