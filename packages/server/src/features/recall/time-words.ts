import { EARLIEST_TIME, LATEST_TIME } from '@engram/shared';

/**
 * Time words in a question ("last week", "in March 2024", "before 2023",
 * "currently"), read as a time range relative to `now`, in UTC. Free of
 * SQL and of the clock: `now` is always given.
 *
 * The ranges (both ends inclusive; an open end is null):
 * - "today", "yesterday": that UTC day.
 * - "this week|month|year": the calendar week (Monday–Sunday), month or year holding `now`.
 * - "last week|month|year": the previous calendar week (Monday–Sunday), month or year.
 * - "past week|month|year", "last|past N days|weeks|months|years": the N units up to `now`.
 * - "recently", "lately": the last 30 days up to `now`.
 * - "in|during|on <date>", "<month> <year>", "<day> <month> <year>", an ISO
 *   date: that day, month or year ("in March" alone: the latest March not after `now`).
 *   Years are read as written: four digits, 1000 to 9999 ("in 1843", "September
 *   1843"), or any year from 1 in an ISO date ("0800-05-01"). A number followed
 *   by what it counts ("before 1000 users", "2000 meters") or by BC is no year,
 *   and after "of", "for", "by" or "on" a year alone counts only from 1900 to
 *   2099 ("a population of 1500").
 * A range ending outside years 1 to 9999 (the times stored, as for `asOf`)
 * stops at their edge.
 * - "before <date>": up to the instant before it; "after <date>": from the
 *   instant after it; "since <date>": from its start; "between <date> and
 *   <date>": both; "after X and before Y" combine.
 * - "now", "currently", "current", "at the moment", "these days",
 *   "nowadays", "at present", "still": facts holding at `now` — anything
 *   begun by then (`until` = now) — with facts that ended before `now`
 *   ranked below those still holding (`current`).
 * An explicit range wins over the words for "now".
 */

export interface TimeRange {
  since: Date | null;
  until: Date | null;
}

export interface QuestionTime extends TimeRange {
  /** A question about the present ("where does Ada work now?"): facts that ended rank lower. */
  current: boolean;
  /**
   * The question's time words as written ("last week", "March 2024",
   * "currently"), joined by spaces: recall counts them as matched by a fact
   * its date puts in the range, as by one that writes them.
   */
  phrases: string;
}

const DAY = 86_400_000;
/** What "recently" and "lately" cover, up to `now`. */
export const RECENT_DAYS = 30;

const MONTH_NAMES = [
  'jan(?:uary)?',
  'feb(?:ruary)?',
  'mar(?:ch)?',
  'apr(?:il)?',
  'may',
  'june?',
  'july?',
  'aug(?:ust)?',
  'sep(?:t(?:ember)?)?',
  'oct(?:ober)?',
  'nov(?:ember)?',
  'dec(?:ember)?',
];
const MONTH = `(${MONTH_NAMES.join('|')})`;
const YEAR = '([1-9]\\d{3})';
const DAY_OF_MONTH = '(\\d{1,2})(?:st|nd|rd|th)?';

/**
 * What a bare number counts, when it is followed by it: no year then. Case
 * matters: a plural is lower case ("1843 Jones" is a year); a few words
 * ending in s are not plurals.
 */
const COUNTED =
  /^\s*(?:%|B\.?C\.?(?:E\.?)?(?![A-Za-z])|(?:percent|per|times|people|persons|men|women|children|feet|ms|mm|cm|km|mg|kg|ml|mi|ft|lb|[kKmMgGtT][bB])\b|(?!(?:this|was|has|his|its|does|yes|always|perhaps|whereas|thus|less|unless|across|plus|towards|besides|sometimes|afterwards|onwards)\b)[a-z]{2,}s\b)/;

const monthIndex = (word: string) =>
  MONTH_NAMES.findIndex((pattern) => new RegExp(`^(?:${pattern})$`, 'i').test(word));

/** Midnight UTC of a day; years 0 to 99 as written (`Date.UTC` reads them as 1900 to 1999). */
function utcDay(year: number, month: number, day: number): Date {
  const at = new Date(0);
  at.setUTCFullYear(year, month, day);
  return at;
}

const startOfDay = (at: Date) => utcDay(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
const endBefore = (start: Date) => new Date(start.getTime() - 1);
const addDays = (at: Date, days: number) => new Date(at.getTime() + days * DAY);
const monthStart = (year: number, month: number) => utcDay(year, month, 1);

const earliest = (a: Date | null, b: Date) => (a && a < b ? a : b);
const latest = (a: Date | null, b: Date) => (a && a > b ? a : b);

/** A period as its first and last instants. */
interface Period {
  start: Date;
  end: Date;
}

const dayPeriod = (start: Date): Period => ({ start, end: endBefore(addDays(start, 1)) });
const monthPeriod = (year: number, month: number): Period => ({
  start: monthStart(year, month),
  end: endBefore(monthStart(year, month + 1)),
});
const yearPeriod = (year: number): Period => ({
  start: monthStart(year, 0),
  end: endBefore(monthStart(year + 1, 0)),
});

function weekPeriod(now: Date, weeksBack: number): Period {
  const today = startOfDay(now);
  const monday = addDays(today, -((today.getUTCDay() + 6) % 7) - 7 * weeksBack);
  return { start: monday, end: endBefore(addDays(monday, 7)) };
}

/** A real calendar day, or undefined (31 February, year 0). */
function calendarDay(year: number, month: number, day: number): Period | undefined {
  const start = utcDay(year, month, day);
  return year >= 1 && start.getUTCMonth() === month && start.getUTCDate() === day
    ? dayPeriod(start)
    : undefined;
}

/**
 * The date expressions a range can be made of, most precise first, each as
 * a pattern (anchored at its start) and the period it names.
 */
const DATES: {
  pattern: RegExp;
  period: (m: RegExpExecArray, now: Date) => Period | undefined;
  /** A year alone: no year when followed by what it counts. */
  bare?: true;
}[] = [
  {
    pattern: new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})\\b`, 'i'),
    period: (m) => calendarDay(Number(m[1]), Number(m[2]) - 1, Number(m[3])),
  },
  {
    pattern: new RegExp(
      `^(?:the\\s+)?${DAY_OF_MONTH}\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+${YEAR}\\b`,
      'i',
    ),
    period: (m) => calendarDay(Number(m[3]), monthIndex(m[2]!), Number(m[1])),
  },
  {
    pattern: new RegExp(`^${MONTH}\\.?\\s+${DAY_OF_MONTH},?\\s+${YEAR}\\b`, 'i'),
    period: (m) => calendarDay(Number(m[3]), monthIndex(m[1]!), Number(m[2])),
  },
  {
    pattern: new RegExp(`^${MONTH}\\.?,?\\s+(?:of\\s+)?${YEAR}\\b`, 'i'),
    period: (m) => monthPeriod(Number(m[2]), monthIndex(m[1]!)),
  },
  {
    pattern: new RegExp(`^${YEAR}\\b`, 'i'),
    period: (m) => yearPeriod(Number(m[1])),
    bare: true,
  },
  {
    // A month alone: the latest one that began by `now`.
    pattern: new RegExp(`^${MONTH}\\b`, 'i'),
    period: (m, now) => {
      const month = monthIndex(m[1]!);
      const year = now.getUTCFullYear() - (month > now.getUTCMonth() ? 1 : 0);
      return monthPeriod(year, month);
    },
  },
];

/**
 * The date expression at the start of `text`, with how many characters it
 * took; `year` when it is a year alone.
 */
function dateAt(
  text: string,
  now: Date,
): { period: Period; length: number; year?: number } | undefined {
  for (const { pattern, period, bare } of DATES) {
    const m = pattern.exec(text);
    if (!m) continue;
    if (bare && COUNTED.test(text.slice(m[0].length))) return undefined;
    const found = period(m, now);
    if (!found) return undefined;
    return { period: found, length: m[0].length, ...(bare ? { year: Number(m[1]) } : {}) };
  }
  return undefined;
}

/** Whether a year alone after `how` is read as a year ("a population of 1500" is not). */
const yearAfter = (how: string, year: number) =>
  !['of', 'for', 'by', 'on'].includes(how) || (year >= 1900 && year <= 2099);

/** Units counted in days; months and years are counted on the calendar. */
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7 };

function unitsBack(now: Date, count: number, unit: string): Date {
  if (unit in UNIT_DAYS) return addDays(now, -count * UNIT_DAYS[unit]!);
  const back = new Date(now);
  if (unit === 'month') back.setUTCMonth(back.getUTCMonth() - count);
  else back.setUTCFullYear(back.getUTCFullYear() - count);
  return back;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
};

/** Relative phrases: each a pattern and the period it names at `now`. */
const RELATIVE: { pattern: RegExp; period: (m: RegExpExecArray, now: Date) => Period }[] = [
  { pattern: /\byesterday\b/i, period: (_, now) => dayPeriod(addDays(startOfDay(now), -1)) },
  { pattern: /\btoday\b/i, period: (_, now) => dayPeriod(startOfDay(now)) },
  {
    pattern:
      /\b(?:in\s+|over\s+|during\s+)?(?:the\s+)?(?:last|past)\s+(\d{1,3}|a|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(day|week|month|year)s?\b/i,
    period: (m, now) => {
      const count = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
      return { start: unitsBack(now, count, m[2]!.toLowerCase()), end: now };
    },
  },
  {
    pattern: /\b(?:in\s+|over\s+|during\s+)?the\s+past\s+(week|month|year)\b/i,
    period: (m, now) => ({ start: unitsBack(now, 1, m[1]!.toLowerCase()), end: now }),
  },
  {
    pattern: /\b(last|this|past)\s+(week|month|year)\b/i,
    period: (m, now) => {
      const which = m[1]!.toLowerCase();
      const unit = m[2]!.toLowerCase();
      if (which === 'past') return { start: unitsBack(now, 1, unit), end: now };
      const back = which === 'last' ? 1 : 0;
      if (unit === 'week') return weekPeriod(now, back);
      if (unit === 'month') return monthPeriod(now.getUTCFullYear(), now.getUTCMonth() - back);
      return yearPeriod(now.getUTCFullYear() - back);
    },
  },
  {
    pattern: /\b(?:recently|lately|of\s+late)\b/i,
    period: (_, now) => ({ start: addDays(now, -RECENT_DAYS), end: now }),
  },
];

const CURRENT =
  /\b(?:right\s+now|now|currently|current|at\s+the\s+moment|these\s+days|nowadays|at\s+present|presently|still)\b/gi;

/** A word before a date expression, and what it makes of the date's period. */
const LEADS =
  /\b(before|after|since|between|from|in|during|on|throughout|until|till|by|of|for)\s+(?:the\s+(?:start|end|beginning)\s+of\s+)?/gi;

/**
 * The time range a question's words name at `now`, or null when they name
 * none. Absolute dates count only after a word that says how ("in 2023",
 * "before March 2024"), or when precise enough to be a date on their own
 * ("March 2024", "3 March 2024", "2024-03-03").
 */
export function timeInQuestion(question: string, now: Date): QuestionTime | null {
  let since: Date | null = null;
  let until: Date | null = null;
  let bounded = false;
  let rest = question;
  const phrases: string[] = [];

  // Dates led by a word that says how they bound the range.
  for (const lead of question.matchAll(LEADS)) {
    const at = lead.index + lead[0].length;
    const date = dateAt(question.slice(at), now);
    if (!date) continue;
    const monthAlone = /^[a-z]+\.?$/i.test(question.slice(at, at + date.length).trim());
    const how = lead[1]!.toLowerCase();
    // "for May" or "of May" is not a date bound; a bare month needs in/during/before/after/since.
    if (monthAlone && ['of', 'for', 'by', 'on'].includes(how)) continue;
    if (date.year !== undefined && !yearAfter(how, date.year)) continue;
    const joint =
      how === 'between' || how === 'from'
        ? /^\s*(?:and|to|through|until|-)\s+/i.exec(question.slice(at + date.length))
        : null;
    const from = at + date.length + (joint?.[0].length ?? 0);
    const second = joint ? dateAt(question.slice(from), now) : undefined;
    // "between 1000 and 5000 rows": numbers that count something, not years.
    if (date.year !== undefined && joint && !second && /^\d/.test(question.slice(from))) continue;
    phrases.push(question.slice(at, at + date.length));
    if (how === 'before' || how === 'until' || how === 'till' || how === 'by') {
      const end = how === 'before' ? endBefore(date.period.start) : date.period.end;
      until = earliest(until, end);
    } else if (how === 'after') {
      const start = new Date(date.period.end.getTime() + 1);
      since = latest(since, start);
    } else if (how === 'since' || how === 'from' || how === 'between') {
      since = latest(since, date.period.start);
      if (second) {
        until = second.period.end;
        phrases.push(question.slice(from, from + second.length));
      }
    } else if (!bounded) {
      since = date.period.start;
      until = date.period.end;
    }
    bounded = true;
  }

  // Dates precise enough on their own ("March 2024", "3 March 2024").
  if (!bounded) {
    const standalone = new RegExp(
      `\\b(?:\\d{4}-\\d{2}-\\d{2}|${DAY_OF_MONTH}\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+${YEAR}|${MONTH}\\.?\\s+(?:${DAY_OF_MONTH},?\\s+)?${YEAR})\\b`,
      'i',
    ).exec(question);
    const date = standalone && dateAt(question.slice(standalone.index), now);
    if (date) {
      since = date.period.start;
      until = date.period.end;
      phrases.push(question.slice(standalone.index, standalone.index + date.length));
      bounded = true;
    }
  }

  // Relative phrases: the first names the range when no date did.
  for (const { pattern, period } of RELATIVE) {
    const m = pattern.exec(rest);
    if (!m) continue;
    if (!bounded) {
      const found = period(m, now);
      since = found.start;
      until = found.end;
      bounded = true;
    }
    phrases.push(m[0]);
    rest = rest.replace(pattern, ' ');
  }

  const current = bounded ? [] : [...question.matchAll(CURRENT)].map((m) => m[0]);
  if (current.length > 0) {
    return { since: null, until: within(now), current: true, phrases: current.join(' ') };
  }
  if (!bounded) return null;
  return {
    since: since && within(since),
    until: until && within(until),
    current: false,
    phrases: phrases.join(' '),
  };
}

/** `at`, or the nearest time stored ("after 9999-12-31" starts at the last one). */
const within = (at: Date) =>
  at < EARLIEST_TIME ? EARLIEST_TIME : at > LATEST_TIME ? LATEST_TIME : at;
