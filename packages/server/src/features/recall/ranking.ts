/**
 * Recall's ranking rules (decision 020), free of SQL so they can be read and
 * tested on their own. The database finds the candidates and scores their
 * words (BM25 with binary term frequency, the entity's name as a second
 * field); these rules weigh the terms, pick which ones find candidates,
 * and order what comes back.
 */

/** BM25's term-frequency saturation and length normalisation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.5;

/** A word in the entity's name counts as much as one in the observation (the entity is who said or holds it). */
export const NAME_FIELD_WEIGHT = 1;

/**
 * Past this many matches in an account a word is common: counting further
 * would cost a read per match, and its weight is near the floor anyway.
 */
export const COMMON_WORD_MATCHES = 100;

/** Observations in the sample common words are counted in. */
export const SAMPLE_SIZE = 300;

/** The most observations one recall scores from the question's words. */
export const CANDIDATE_BUDGET = 800;
/** Past the budget, the rarest words' matches taken whole, at most… */
export const RARE_BUDGET = 300;
/** …and then pairs among this many of the next rarest words, those not too common to narrow anything. */
export const PAIRED_WORDS = 5;
export const PAIRED_MATCHES_MAX = 10 * CANDIDATE_BUDGET;

/** The most words of a question recall reads. */
export const QUERY_WORDS_MAX = 32;

/**
 * Of the candidates the database scores, how many the final order looks at:
 * three times the results asked for, at least RESCORED_MIN; RESCORED_MAX
 * under a time range, whose factors (time-range.ts) move a result further
 * than the boosts below. Each one looked at costs a read of its text.
 */
export const RESCORED_MIN = 50;
export const RESCORED_MAX = 200;
export const rescoredFor = (limit: number, ranged: boolean) =>
  ranged ? RESCORED_MAX : Math.min(RESCORED_MAX, Math.max(RESCORED_MIN, 3 * limit));

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
  /** The word as a one-word tsquery. */
  query: string;
  /** How many of the account's observations hold it: counted, or estimated from the sample when common. */
  matches: number;
  /** BM25's inverse document frequency. */
  weight: number;
  /** A word of the dates the question's time range was made of. */
  dated?: boolean;
}

/** BM25's inverse document frequency of a word held by `matches` of `total` observations. */
export function inverseFrequency(matches: number, total: number): number {
  const n = Math.max(total, matches);
  return Math.log(1 + (n - matches + 0.5) / (matches + 0.5));
}

/**
 * Each word's weight from its count, or — for a word too common to count —
 * from its share of the sample, never below the cap it would have passed.
 */
export function weighTerms(
  words: {
    lexeme: string;
    query: string;
    matches: number | null;
    sampleHits: number;
    dated?: boolean;
  }[],
  sample: { observations: number; sampleSize: number },
): TermWeight[] {
  return words.map(({ lexeme, query, matches, sampleHits, dated }) => {
    const estimated =
      matches ??
      Math.max(
        COMMON_WORD_MATCHES,
        Math.round((sampleHits / Math.max(sample.sampleSize, 1)) * sample.observations),
      );
    return {
      lexeme,
      query,
      matches: estimated,
      weight: inverseFrequency(estimated, sample.observations),
      ...(dated ? { dated } : {}),
    };
  });
}

/**
 * Which observations are candidates, as one tsquery. When all the words'
 * matches fit the budget, every observation holding any word is (BM25 is then
 * exact). Otherwise, the observations holding one of the rarest words (whose
 * matches fit RARE_BUDGET; always at least the rarest), and those holding two
 * of the next few words: an observation with only one common word cannot
 * outscore them. Null when no word is held by any observation.
 */
export function candidateQuery(terms: TermWeight[]): string | null {
  const found = terms.filter((term) => term.matches > 0).sort((a, b) => a.matches - b.matches);
  if (found.length === 0) return null;
  const total = found.reduce((sum, term) => sum + term.matches, 0);
  if (total <= CANDIDATE_BUDGET) return anyOf(found);
  const rare: TermWeight[] = [];
  let rows = 0;
  for (const term of found) {
    if (rare.length > 0 && rows + term.matches > RARE_BUDGET) break;
    rare.push(term);
    rows += term.matches;
  }
  const paired = found
    .slice(rare.length, rare.length + PAIRED_WORDS)
    .filter((term) => term.matches <= PAIRED_MATCHES_MAX);
  const pairs = paired.flatMap((a, i) =>
    paired.slice(i + 1).map((b) => `(${a.query} & ${b.query})`),
  );
  return [...rare.map((term) => term.query), ...pairs].join(' | ');
}

/** Any of the words, as one tsquery. */
export function anyOf(terms: { query: string }[]): string {
  return terms.map((term) => term.query).join(' | ');
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
 * The database's scores, raised for observations of entities next to the
 * ones the question names and, for questions about time, for observations
 * that carry a date; observations matching too little of the question are
 * dropped. Best first; recency breaks ties.
 */
export function rescore<T extends ScoredCandidate>(
  candidates: T[],
  context: { question: string; neighbours: ReadonlySet<string> },
): T[] {
  const aboutTime = asksAboutTime(context.question);
  return candidates
    .filter((candidate) => candidate.coverage >= MIN_COVERAGE)
    .map((candidate) => {
      let factor = 1;
      if (context.neighbours.has(candidate.entityId)) factor += NEIGHBOUR_BOOST;
      if (aboutTime && carriesDate(candidate.content)) factor += DATE_BOOST;
      return { ...candidate, score: candidate.score * factor };
    })
    .sort(byScore);
}

/** How many of the best results lend to the observations added beside them on their entity… */
export const ADJACENT_SOURCES = 5;
/** …and the share of their score they lend (tuned on bench/recall's dev split: 3–5 and 0.7–0.85 alike). */
export const ADJACENT_SHARE = 0.7;
/**
 * Only in an entity holding this many observations: a record long enough to
 * be a sequence (a conversation, a log). In a short list of facts the one
 * beside a match is just another fact, and a small memory's answers stay
 * to what matches.
 */
export const ADJACENT_RECORD_MIN = 10;

/**
 * The observations just before and after each source on its entity score
 * ADJACENT_SHARE of the source's score when that is more than their own:
 * in a conversation stored turn by turn, the turn that matches a question's
 * words ("I adopted a cat!") is often followed by the one that answers it
 * ("His name is Pickles"), which shares none of them. A neighbour that was
 * not a candidate takes its source's entity and, scaled alike, its coverage
 * (confidence is then below the source's). Best first.
 */
export function lendToAdjacent<
  T extends ScoredCandidate & {
    entityName: string;
    entityType: string;
    rarest: number;
    named: boolean;
  },
>(
  ranked: T[],
  sources: T[],
  adjacent: (Omit<ScoredCandidate, 'entityId' | 'score' | 'coverage'> & { source: number })[],
): T[] {
  const byId = new Map(ranked.map((row) => [row.id, row]));
  for (const { source, ...row } of adjacent) {
    const from = sources[source];
    if (!from) continue;
    const score = from.score * ADJACENT_SHARE;
    const known = byId.get(row.id);
    if (known) {
      if (known.score < score) byId.set(row.id, { ...known, score });
      continue;
    }
    byId.set(row.id, {
      ...from,
      ...row,
      score,
      coverage: from.coverage * ADJACENT_SHARE,
    });
  }
  return [...byId.values()].sort(byScore);
}

function byScore(a: { score: number; createdAt: Date; id: string }, b: typeof a): number {
  return (
    b.score - a.score || b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : 1)
  );
}

/** The first `limit`, dropping those far behind the best; scores rounded for the answer. */
export function finalOrder<T extends { score: number }>(ranked: T[], limit: number): T[] {
  const best = ranked[0]?.score ?? 0;
  return ranked
    .filter((row) => row.score >= best * MIN_SHARE_OF_BEST)
    .slice(0, limit)
    .map((row) => ({ ...row, score: Math.round(row.score * 1000) / 1000 }));
}

/**
 * A result holds enough of the question when the weight (IDF) of the
 * question words it holds reaches this many times the weight of a word no
 * observation holds: one rare name alone is not enough, a rare name with a
 * rare topic word is.
 */
export const ENOUGH_WEIGHT = 1.5;
/** Below this confidence, even the best match does not answer the question: recall abstains. */
export const ABSTAIN_FLOOR = 0.05;

/** A memory smaller than this is weighed, for confidence only, as if it had this many observations. */
export const CONFIDENCE_MEMORY_MIN = 1_000;
/** A word held by at most this many observations is specific, however small the memory. */
export const SPECIFIC_MATCHES = 3;

/**
 * What a word's weight gains when a memory of `observations` is weighed as
 * one of CONFIDENCE_MEMORY_MIN: BM25's IDF is ln((N + 1) / (n + 0.5)), so
 * growing N to N' adds ln((N' + 1) / (N + 1)) to every word's weight. In a
 * small memory every word is held by a large share of it, and without this
 * an exact match there ("compiler", held by the one observation of a new
 * memory) would weigh too little to answer. It applies to a result whose
 * rarest word at most SPECIFIC_MATCHES observations hold: a word half of a
 * small memory holds ("good") stays as weak as it is. From
 * CONFIDENCE_MEMORY_MIN on, nothing changes.
 */
export function confidenceShift(observations: number): number {
  return Math.max(0, Math.log((CONFIDENCE_MEMORY_MIN + 1) / (Math.max(observations, 0) + 1)));
}

/**
 * How surely an observation answers the question, 0–1 (docs/recall.md), the
 * product of three shares, each 0–1:
 * - coverage: the share of the question's weight (IDF) it holds, in its text
 *   or its entity's name — a question about an unknown name or topic leaves
 *   its heaviest words uncovered;
 * - rarity: the weight of the rarest question word it holds over the weight
 *   of a word no observation holds (`maxWeight`) — a match on common words
 *   alone is weak however many it covers;
 * - mass: the weight it holds over ENOUGH_WEIGHT × `maxWeight`, at most 1 —
 *   a match on one or two middling words of a short question is weak.
 * An observation of an entity the question names (its name or an alias
 * holds a question word) has rarity 1 and `maxWeight` more mass.
 */
export function confidenceOf(
  row: { coverage: number; rarest: number; named?: boolean },
  question: { totalWeight: number; maxWeight: number; terms: number; observations: number },
): number {
  // A match on a word few observations hold, in a small memory, is weighed as in a
  // memory of CONFIDENCE_MEMORY_MIN observations (see confidenceShift).
  const few =
    row.rarest > 0 &&
    (question.observations + 1) * Math.exp(-row.rarest) - 0.5 <= SPECIFIC_MATCHES + 1e-9;
  const shift = few ? confidenceShift(question.observations) : 0;
  const maxWeight = question.maxWeight + shift;
  const totalWeight = question.totalWeight + shift * question.terms;
  if (question.maxWeight <= 0) return 0;
  const coverage = Math.min(1, Math.max(0, row.coverage));
  const rarest = row.rarest > 0 ? row.rarest + shift : 0;
  // The question names its entity: as specific as a question gets, and worth a word no observation holds.
  const rarity = row.named ? 1 : Math.min(1, Math.max(0, rarest / maxWeight));
  const held = coverage * totalWeight + (row.named ? maxWeight : 0);
  const mass = Math.min(1, held / (ENOUGH_WEIGHT * maxWeight));
  return Math.round(coverage * rarity * mass * 1000) / 1000;
}

/**
 * The names a question uses that nothing in memory mentions: its words
 * written with a capital (not the first word) whose stem no observation
 * holds and that are no word of a candidate's entity name ("Who taught
 * Marguerite to sail?" when no Marguerite is known). A question about
 * someone or somewhere the memory never heard of is not answered by what
 * it shares with the rest.
 */
export function unknownNames(
  question: string,
  words: { lexeme: string; matches: number; dated?: boolean }[],
  entityNames: Iterable<string>,
): string[] {
  const known = new Set<string>();
  for (const name of entityNames) {
    for (const word of name.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) known.add(word);
  }
  const unheard = words.filter((word) => word.matches === 0 && !word.dated);
  const tokens = question.match(/[\p{L}][\p{L}\p{N}'’-]*/gu) ?? [];
  const names: string[] = [];
  for (const token of tokens.slice(1)) {
    if (token[0] === token[0]!.toLowerCase()) continue;
    const word = token.toLowerCase().replace(/['’]s$/, '');
    if (known.has(word) || names.includes(token.replace(/['’]s$/, ''))) continue;
    if (unheard.some((term) => word.startsWith(term.lexeme)))
      names.push(token.replace(/['’]s$/, ''));
  }
  return names;
}

const PLAIN_STOP = new Set(
  'the and for are was were did does what when where who whom which why how with from that this have has had about into you your her his their they them she him its our not but any all can will would could should been being there here than then'.split(
    ' ',
  ),
);
const plainWords = (text: string) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])
    .filter((word) => !PLAIN_STOP.has(word))
    .map((word) => word.slice(0, 5));

/**
 * The share of a question's words (three letters or more, not a stop word,
 * compared on their first five letters) a text holds, 0–1: the confidence
 * of an answer read from the past (asOf), whose reader scores no coverage.
 */
export function plainCoverage(question: string, text: string): number {
  const asked = [...new Set(plainWords(question))];
  if (asked.length === 0) return 0;
  const held = new Set(plainWords(text));
  return Math.round((asked.filter((word) => held.has(word)).length / asked.length) * 1000) / 1000;
}
