/**
 * Scoring: an answer is a hit at k when any of the question's evidence refs
 * is among its first k results. Groups questions by split, kind and category
 * and prints the tables.
 */
import { CATEGORIES, type Question } from './data.js';

export const KS = [1, 5, 10] as const;

export interface Answer {
  /** Refs of the results that are memories of the set, best first; null for any other result. */
  refs: (string | null)[];
  /** Characters returned (the sum of the results' texts). */
  chars: number;
  ms?: number;
  /** recall only: whether it answered "nothing", each result's confidence, and when each held. */
  abstained?: boolean;
  confidences?: number[];
  dates?: { validFrom: string | null; validTo: string | null }[];
}

export interface Row {
  label: string;
  questions: number;
  recall: Record<(typeof KS)[number], number>;
  charsMean: number;
  charsMax: number;
  p50?: number;
  p95?: number;
  /** Unanswerable questions only: the mean number of results. */
  resultsMean?: number;
}

export const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export function firstHit(question: Question, answer: Answer): number {
  const evidence = new Set(question.evidence);
  const index = answer.refs.findIndex((ref) => ref !== null && evidence.has(ref));
  return index === -1 ? Infinity : index + 1;
}

export function summarize(label: string, questions: Question[], answers: Map<string, Answer>): Row {
  const answered = questions.map((q) => ({ q, a: answers.get(q.id)! }));
  const timed = answered.map(({ a }) => a.ms).filter((ms): ms is number => ms !== undefined);
  const chars = answered.map(({ a }) => a.chars);
  const hits = (k: number) =>
    answered.filter(({ q, a }) => q.evidence.length > 0 && firstHit(q, a) <= k).length;
  const answerable = questions.filter((q) => q.evidence.length > 0).length;
  const unanswerable = answered.filter(({ q }) => q.evidence.length === 0);
  return {
    label,
    questions: questions.length,
    recall: {
      1: answerable ? hits(1) / answerable : Number.NaN,
      5: answerable ? hits(5) / answerable : Number.NaN,
      10: answerable ? hits(10) / answerable : Number.NaN,
    },
    charsMean: chars.reduce((sum, n) => sum + n, 0) / (chars.length || 1),
    charsMax: Math.max(0, ...chars),
    ...(timed.length ? { p50: percentile(timed, 50), p95: percentile(timed, 95) } : {}),
    ...(unanswerable.length
      ? {
          resultsMean:
            unanswerable.reduce((sum, { a }) => sum + a.refs.length, 0) / unanswerable.length,
        }
      : {}),
  };
}

/** The set's answerable questions as the figures have always counted them: conversational and factual (not dated). */
export const isAnswerable = (q: Question) =>
  q.category !== 'unanswerable' && (q.kind === 'conversational' || q.kind === 'factual');

/** Rows for one split: all answerable, each kind, each category (unanswerable last), then the own set's kinds. */
export function breakdown(questions: Question[], answers: Map<string, Answer>): Row[] {
  const answerable = questions.filter(isAnswerable);
  const rows = [summarize('all answerable', answerable, answers)];
  for (const kind of ['conversational', 'factual'] as const) {
    const some = answerable.filter((q) => q.kind === kind);
    if (some.length) rows.push(summarize(kind, some, answers));
  }
  const inSet = questions.filter((q) => q.kind === 'conversational' || q.kind === 'factual');
  for (const category of CATEGORIES) {
    const some = inSet.filter((q) => q.category === category);
    if (some.length) rows.push(summarize(category, some, answers));
  }
  const dated = questions.filter((q) => q.kind === 'dated');
  if (dated.length) rows.push(summarize('dated (dated.json)', dated, answers));
  const own = questions.filter((q) => q.kind === 'abstain');
  if (own.length) rows.push(summarize('unanswerable (unanswerable.json)', own, answers));
  return rows;
}

const DAY = 86_400_000;

/**
 * A dated question is answered in range when an evidence observation is
 * among the first 10 and every result with a date (validFrom) lies in the
 * question's range (a span must overlap it; a date-only `until` covers its day).
 */
export function answeredInRange(question: Question, answer: Answer): boolean {
  const range = question.time?.range;
  if (!range || firstHit(question, answer) > 10) return false;
  const since = range.since ? Date.parse(range.since) : -Infinity;
  const until = range.until ? Date.parse(range.until) + DAY - 1 : Infinity;
  return (answer.dates ?? []).every(({ validFrom, validTo }) => {
    if (!validFrom) return true;
    const from = Date.parse(validFrom);
    const to = validTo ? Date.parse(validTo) : from;
    return from <= until && to >= since;
  });
}

export interface AbstainRow {
  label: string;
  answerable: number;
  r5: number;
  r10: number;
  /** R@10 of the same questions asked with abstain=false. */
  r10BestEffort: number;
  /** Answerable questions recall abstained on. */
  answerableAbstained: number;
  unanswerable: number;
  /** Unanswerable questions answered with no result. */
  abstainRate: number;
  /** Mean results of the unanswerable questions that got some. */
  resultsWhenAnswering: number;
  dated: number;
  datedInRange: number;
}

/** Abstaining's figures for one split: what it costs answerable questions, what it saves on the rest. */
export function abstainRow(
  label: string,
  questions: Question[],
  answers: Map<string, Answer>,
  bestEffort: Map<string, Answer>,
): AbstainRow {
  const answerable = questions.filter(isAnswerable);
  const share = (some: Question[], test: (q: Question) => boolean) =>
    some.length ? some.filter(test).length / some.length : Number.NaN;
  const unanswerable = questions.filter((q) => q.category === 'unanswerable');
  const answering = unanswerable.filter((q) => answers.get(q.id)!.refs.length > 0);
  const dated = questions.filter((q) => q.kind === 'dated');
  return {
    label,
    answerable: answerable.length,
    r5: share(answerable, (q) => firstHit(q, answers.get(q.id)!) <= 5),
    r10: share(answerable, (q) => firstHit(q, answers.get(q.id)!) <= 10),
    r10BestEffort: share(answerable, (q) => firstHit(q, bestEffort.get(q.id)!) <= 10),
    answerableAbstained: share(answerable, (q) => answers.get(q.id)!.refs.length === 0),
    unanswerable: unanswerable.length,
    abstainRate: share(unanswerable, (q) => answers.get(q.id)!.refs.length === 0),
    resultsWhenAnswering: answering.length
      ? answering.reduce((sum, q) => sum + answers.get(q.id)!.refs.length, 0) / answering.length
      : 0,
    dated: dated.length,
    datedInRange: share(dated, (q) => answeredInRange(q, answers.get(q.id)!)),
  };
}

export const ABSTAIN_HEADER = [
  'questions',
  'answerable',
  'R@5',
  'R@10',
  'R@10 abstain=false',
  'answerable abstained',
  'unanswerable',
  'abstain rate',
  'results when not abstaining',
  'dated',
  'dated in range',
];

export const abstainCells = (row: AbstainRow) => [
  row.label,
  String(row.answerable),
  pct(row.r5),
  pct(row.r10),
  pct(row.r10BestEffort),
  pct(row.answerableAbstained),
  String(row.unanswerable),
  pct(row.abstainRate),
  row.resultsWhenAnswering.toFixed(2),
  String(row.dated),
  pct(row.datedInRange),
];

/**
 * For calibrating the floor (dev only): from the best-effort answers, what a
 * floor on the best result's confidence would do — the share of unanswerable
 * questions it empties, the share of answerable ones it empties, and R@10.
 */
export function floorSweep(
  questions: Question[],
  bestEffort: Map<string, Answer>,
  floors: number[],
): string[][] {
  const top = (q: Question) => bestEffort.get(q.id)!.confidences?.[0] ?? 0;
  const answerable = questions.filter(isAnswerable);
  const unanswerable = questions.filter((q) => q.category === 'unanswerable');
  const dated = questions.filter((q) => q.kind === 'dated');
  return floors.map((floor) => [
    floor.toFixed(2),
    pct(unanswerable.filter((q) => top(q) < floor).length / (unanswerable.length || 1)),
    pct(answerable.filter((q) => top(q) < floor).length / (answerable.length || 1)),
    pct(
      answerable.filter((q) => top(q) >= floor && firstHit(q, bestEffort.get(q.id)!) <= 10).length /
        (answerable.length || 1),
    ),
    pct(dated.filter((q) => top(q) < floor).length / (dated.length || 1)),
    // Were each result below the floor dropped too: R@10, and results of the unanswerable ones left.
    pct(
      answerable.filter((q) => {
        const answer = bestEffort.get(q.id)!;
        const kept = answer.confidences ?? [];
        const hit = firstHit(q, answer);
        return hit <= 10 && (kept[hit - 1] ?? 0) >= floor;
      }).length / (answerable.length || 1),
    ),
    (() => {
      const left = unanswerable
        .map((q) => (bestEffort.get(q.id)!.confidences ?? []).filter((c) => c >= floor).length)
        .filter((n) => n > 0);
      return left.length ? (left.reduce((a, b) => a + b, 0) / left.length).toFixed(2) : '–';
    })(),
  ]);
}

export const SWEEP_HEADER = [
  'floor',
  'unanswerable emptied',
  'answerable emptied',
  'R@10',
  'dated emptied',
  'R@10, each result held to the floor',
  'results when not abstaining, each held to the floor',
];

export const pct = (value: number) => (Number.isNaN(value) ? '–' : `${(value * 100).toFixed(1)}%`);
const ms = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(1));

/** A Markdown table (readable in a terminal and pasteable into bench/README.md). */
export function table(header: string[], rows: string[][]): string {
  const lines = [header, header.map(() => '---'), ...rows].map(
    (cells) => `| ${cells.join(' | ')} |`,
  );
  return lines.join('\n');
}

export function rowCells(row: Row): string[] {
  return [
    row.label,
    String(row.questions),
    pct(row.recall[1]),
    pct(row.recall[5]),
    pct(row.recall[10]),
    row.charsMean.toFixed(0),
    String(row.charsMax),
    ms(row.p50),
    ms(row.p95),
    row.resultsMean === undefined ? '' : row.resultsMean.toFixed(1),
  ];
}

export const ROW_HEADER = [
  'questions',
  'n',
  'R@1',
  'R@5',
  'R@10',
  'chars mean',
  'chars max',
  'p50 ms',
  'p95 ms',
  'results (unanswerable)',
];
