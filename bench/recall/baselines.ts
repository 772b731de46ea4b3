/**
 * Baselines ranked in this process over the same stored texts: plain BM25
 * (k1 1.2, b 0.75, lowercase word tokens, nothing else), BM25 with a light
 * suffix-stripping stemmer and stop words, and that with a boost for the
 * observations of entities the question names (the reference points).
 */
export interface Document {
  /** The memory's ref (what the evidence names). */
  ref: string;
  entityName: string;
  text: string;
}

export interface Ranked {
  ref: string;
  chars: number;
}

export type Tokenize = (text: string) => string[];

const K1 = 1.2;
const B = 0.75;

export const plainTokens: Tokenize = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being
  below between both but by can could did do does doing down during each few for from further had
  has have having he her here hers herself him himself his how i if in into is it its itself just
  me more most my myself no nor not now of off on once only or other our ours ourselves out over
  own same she should so some such than that the their theirs them themselves then there these
  they this those through to too under until up very was we were what when where which while who
  whom why will with would you your yours yourself yourselves s t d ll m re ve don didn doesn isn
  wasn weren won wouldn also get got ever really yeah oh ok okay hey hi`.split(/\s+/),
);

/** Suffixes stripped longest first, keeping a stem of at least three letters. */
const SUFFIXES = [
  'ational',
  'ization',
  'fulness',
  'ousness',
  'iveness',
  'ations',
  'ation',
  'ments',
  'ment',
  'ness',
  'ings',
  'ing',
  'ies',
  'ied',
  'ers',
  'er',
  'edly',
  'ed',
  'es',
  's',
];

/**
 * A light English stemmer: "moved", "moving", "moves" and "move" all end at
 * "mov"; "families" and "family" at "famili".
 */
export function stem(word: string): string {
  if (word.length <= 2 || /\d/.test(word)) return word;
  let base = word;
  for (const suffix of SUFFIXES) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 3) continue;
    if (suffix === 's' && word.endsWith('ss')) break;
    base = word.slice(0, -suffix.length);
    if (suffix === 'ies' || suffix === 'ied') base += 'i';
    // "running" → "runn" → "run"; "stopped" → "stop".
    else if (/([bdfgmnprt])\1$/.test(base)) base = base.slice(0, -1);
    break;
  }
  return base.replace(/e$/, '').replace(/y$/, 'i');
}

export const stemmedTokens: Tokenize = (text) =>
  plainTokens(text)
    .filter((token) => !STOP_WORDS.has(token))
    .map(stem);

/** An in-memory BM25 index over the documents. */
export class Bm25 {
  readonly #postings = new Map<string, { doc: number; tf: number }[]>();
  readonly #lengths: number[] = [];
  readonly #averageLength: number;

  constructor(
    private readonly documents: Document[],
    private readonly tokenize: Tokenize,
  ) {
    documents.forEach((document, doc) => {
      const tokens = tokenize(document.text);
      this.#lengths.push(tokens.length);
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [term, tf] of counts) {
        const list = this.#postings.get(term) ?? [];
        list.push({ doc, tf });
        this.#postings.set(term, list);
      }
    });
    this.#averageLength = this.#lengths.reduce((sum, n) => sum + n, 0) / documents.length || 1;
  }

  /** Best first, only documents sharing a term with the query; `boost` multiplies a document's score. */
  search(query: string, limit: number, boost?: (document: Document) => number): Ranked[] {
    const scores = new Map<number, number>();
    const n = this.documents.length;
    for (const term of new Set(this.tokenize(query))) {
      const postings = this.#postings.get(term);
      if (!postings) continue;
      const idf = Math.log(1 + (n - postings.length + 0.5) / (postings.length + 0.5));
      for (const { doc, tf } of postings) {
        const norm = K1 * (1 - B + (B * this.#lengths[doc]!) / this.#averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    const ranked = [...scores].map(([doc, score]) => ({
      doc,
      score: boost ? score * boost(this.documents[doc]!) : score,
    }));
    ranked.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return ranked.slice(0, limit).map(({ doc }) => ({
      ref: this.documents[doc]!.ref,
      chars: this.documents[doc]!.text.length,
    }));
  }
}

/**
 * A boost for the observations of the entities a question names: a name
 * counts when its first word appears among the question's words (any case,
 * possessive or not: "maya's" names Maya).
 */
export function namedEntityBoost(question: string, factor = 2): (document: Document) => number {
  const words = new Set(plainTokens(question));
  const memo = new Map<string, boolean>();
  return (document) => {
    let named = memo.get(document.entityName);
    if (named === undefined) {
      const first = plainTokens(document.entityName)[0] ?? '';
      named = first.length > 2 && words.has(first);
      memo.set(document.entityName, named);
    }
    return named ? factor : 1;
  };
}
