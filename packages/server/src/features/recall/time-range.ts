import { isStorableTime, recallTimeBound, type RecallTimeRange } from '@engram/shared';
import { badRequest } from '../../lib/errors.js';
import { timeInQuestion } from './time-words.js';

/**
 * The time range a recall keeps to (decision 020, issue 60): `since`/`until`
 * given as parameters, else the time words of the question.
 *
 * An observation's time is `validFrom` when its writer said when the fact
 * held, else `createdAt`. With `validFrom` alone it is a point, in range when
 * the range holds it; with `validFrom` and `validTo` a span, in range when
 * it overlaps the range.
 *
 * - From parameters the range is strict: observations outside it are left out.
 * - From the question's words it is lenient: observations whose `validFrom`
 *   puts them outside are left out; those without one (only the time they
 *   were written is known) are ranked lower, not left out by the range.
 * The question's time words stay among the words it is matched by: a fact
 * the range kept by its date holds them (recall.repository.ts).
 */

/** What recall and context take about time (as given: REST query strings or MCP arguments). */
export interface TimeArgs {
  since?: string | undefined;
  until?: string | undefined;
  now?: string | undefined;
}

export interface RecallRange {
  since: Date | null;
  until: Date | null;
  source: 'question' | 'parameters';
  /** A question about the present: facts that ended before `now` rank lower. */
  current: boolean;
  now: Date;
}

/** How recall reads a question once its time is resolved. */
export interface ResolvedTime {
  range: RecallRange | null;
  /**
   * The question's time words ("last week", "March 2024"), and which
   * observations count as holding them besides those that write them:
   * `dated`, a fact whose `validFrom` the question's range kept; `all`,
   * every one kept by `since`/`until` (which replace the words' range).
   */
  timeWords: string;
  timeWordsMatch: 'dated' | 'all' | null;
}

/** Observations without a `validFrom` under a question's range: written in it, or not. */
export const UNDATED_IN_RANGE = 0.8;
export const UNDATED_OUT_OF_RANGE = 0.5;
/** For "now" questions: a fact whose `validTo` has passed. */
export const ENDED = 0.5;

/**
 * The range a recall keeps to. `since`/`until` win over the question's
 * words; `now` (default: `defaultNow`) is what the words are read against.
 * `field` names a parameter as a refusal names it ('query.until' on REST).
 */
export function resolveTime(
  question: string,
  args: TimeArgs,
  defaultNow: Date,
  field: (name: string) => string = (name) => name,
): ResolvedTime {
  // A time outside years 1 to 9999 (with its zone, as stored) is refused, as `asOf` is.
  const bound = (name: 'since' | 'until' | 'now') => {
    const value = args[name];
    if (!value) return null;
    const at = recallTimeBound(value, name);
    if (!isStorableTime(at)) {
      throw badRequest(field(name), `${name} must be a time from year 1 to 9999 (UTC)`);
    }
    return at;
  };
  const now = bound('now') ?? defaultNow;
  const time = timeInQuestion(question, now);
  const timeWords = time?.phrases ?? '';
  if (args.since !== undefined || args.until !== undefined) {
    const since = bound('since');
    const until = bound('until');
    if (since && until && since > until) {
      throw badRequest(field('until'), 'until must not be before since');
    }
    return {
      range: { since, until, source: 'parameters', current: false, now },
      timeWords,
      timeWordsMatch: timeWords ? 'all' : null,
    };
  }
  if (!time) return { range: null, timeWords: '', timeWordsMatch: null };
  return {
    range: { since: time.since, until: time.until, source: 'question', current: time.current, now },
    timeWords,
    timeWordsMatch: 'dated',
  };
}

/** The range as an answer says it. */
export const rangeOf = (range: RecallRange | null): RecallTimeRange | null =>
  range && {
    since: range.since?.toISOString() ?? null,
    until: range.until?.toISOString() ?? null,
    source: range.source,
  };

export interface Dated {
  createdAt: Date;
  validFrom: Date | null;
  validTo: Date | null;
}

/** Whether a fact held from `from` (to `to`, when a span) falls in the range. */
function within(from: Date, to: Date | null, range: { since: Date | null; until: Date | null }) {
  const end = to ?? from;
  return (!range.until || from <= range.until) && (!range.since || end >= range.since);
}

/** Whether the range keeps the observation (the SQL in recall.repository.ts says the same). */
export function keeps(row: Dated, range: RecallRange): boolean {
  if (row.validFrom) return within(row.validFrom, row.validTo, range);
  return range.source === 'question' || within(row.createdAt, null, range);
}

/** How much a kept observation's score counts under the range (1: fully). */
export function timeFactor(row: Dated, range: RecallRange | null): number {
  if (!range) return 1;
  let factor = 1;
  if (range.source === 'question' && !row.validFrom) {
    factor *= within(row.createdAt, null, range) ? UNDATED_IN_RANGE : UNDATED_OUT_OF_RANGE;
  }
  if (range.current && row.validTo && row.validTo < range.now) factor *= ENDED;
  return factor;
}
