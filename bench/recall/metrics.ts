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

/** Rows for one split: all answerable, each kind, each category (unanswerable last). */
export function breakdown(questions: Question[], answers: Map<string, Answer>): Row[] {
  const answerable = questions.filter((q) => q.category !== 'unanswerable');
  const rows = [summarize('all answerable', answerable, answers)];
  for (const kind of ['conversational', 'factual'] as const) {
    const some = answerable.filter((q) => q.kind === kind);
    if (some.length) rows.push(summarize(kind, some, answers));
  }
  for (const category of CATEGORIES) {
    const some = questions.filter((q) => q.category === category);
    if (some.length) rows.push(summarize(category, some, answers));
  }
  return rows;
}

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
