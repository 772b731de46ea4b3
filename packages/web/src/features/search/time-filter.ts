import type { RecallResult, RecallTimeRange } from '@engram/shared';
import { formatDate } from '@/lib/format';

/** The Search screen's time filter: a preset, or a range of the person's own. */
export type TimeChoice = 'any' | 'week' | 'month' | 'year' | 'custom';

export const TIME_CHOICES: readonly { value: TimeChoice; label: string }[] = [
  { value: 'any', label: 'Any time' },
  { value: 'week', label: 'Past week' },
  { value: 'month', label: 'Past month' },
  { value: 'year', label: 'Past year' },
  { value: 'custom', label: 'Custom range' },
];

/**
 * The range asked for, as the address holds it (`?since=&until=`, both
 * inclusive, ISO dates); null for an open end.
 */
export interface TimeRange {
  since: string | null;
  until: string | null;
}

export const ANY_TIME: TimeRange = { since: null, until: null };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** '2026-11-27': a day in the person's calendar. */
export function isoDay(day: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** The same day `months` months before, the last of the month when that one is shorter. */
function monthsBefore(day: Date, months: number): Date {
  const first = new Date(day.getFullYear(), day.getMonth() - months, 1);
  const last = new Date(first.getFullYear(), first.getMonth() + 1, 0).getDate();
  return new Date(first.getFullYear(), first.getMonth(), Math.min(day.getDate(), last));
}

/** The first day a preset keeps, counted back from `today`: the range is that day to now. */
export function presetSince(choice: 'week' | 'month' | 'year', today: Date): string {
  if (choice === 'week') {
    return isoDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 7));
  }
  return isoDay(monthsBefore(today, choice === 'month' ? 1 : 12));
}

/** The range a choice asks for today; 'custom' keeps the given range. */
export function rangeOfChoice(choice: TimeChoice, today: Date, current: TimeRange): TimeRange {
  if (choice === 'any') return ANY_TIME;
  if (choice === 'custom') return current;
  return { since: presetSince(choice, today), until: null };
}

/**
 * The choice a range in the address reads as: a preset while its start is
 * still the preset's (a link shared days later reopens the same dates, as a
 * custom range), otherwise a custom range.
 */
export function choiceOfRange(range: TimeRange, today: Date): TimeChoice {
  if (!range.since && !range.until) return 'any';
  if (!range.until && range.since) {
    for (const choice of ['week', 'month', 'year'] as const) {
      if (presetSince(choice, today) === range.since) return choice;
    }
  }
  return 'custom';
}

/** The day an input of type date shows for a bound ('' when it is no plain date). */
export function dayOfBound(bound: string | null): string {
  const day = bound?.slice(0, 10) ?? '';
  return DATE_ONLY.test(day) ? day : '';
}

/** Whether a custom range ends before it starts (both ends given as days). */
export function rangeIsBackwards(range: TimeRange): boolean {
  return range.since !== null && range.until !== null && range.since > range.until;
}

const utcDate = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
});

/**
 * 'Mar 1, 2026': a fact's date or a range's bound, as the server reads them
 * (UTC days), so a fact dated March 1 never shows as February 28.
 */
export function formatDay(iso: string): string {
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? iso : utcDate.format(value);
}

/** What a result's date line says, and the moments it names (for `<time>`). */
export interface ResultDate {
  /** 'fact': when the fact held, as its writer said; 'noted': when it was written. */
  kind: 'fact' | 'noted';
  /** Words before the first date ('noted', 'until'), or ''. */
  lead: string;
  /** One date, or the two ends of a span. */
  dates: { iso: string; text: string }[];
}

/**
 * A result's date: the fact's date (`validFrom`), `validFrom – validTo` for a
 * span, 'until <validTo>' when only its end was said, else 'noted <createdAt>'.
 */
export function resultDate(
  result: Pick<RecallResult, 'createdAt' | 'validFrom' | 'validTo'>,
): ResultDate {
  const from = result.validFrom ?? null;
  const to = result.validTo ?? null;
  const day = (iso: string) => ({ iso, text: formatDay(iso) });
  if (from) {
    const dates = [day(from)];
    if (to && formatDay(to) !== dates[0]!.text) dates.push(day(to));
    return { kind: 'fact', lead: '', dates };
  }
  if (to) return { kind: 'fact', lead: 'until', dates: [day(to)] };
  return {
    kind: 'noted',
    lead: 'noted',
    dates: [{ iso: result.createdAt, text: formatDate(result.createdAt) }],
  };
}

/**
 * The range an answer kept to, in words: 'Mar 1, 2026 – Mar 31, 2026',
 * 'since Mar 1, 2026', 'until Mar 31, 2026'.
 */
export function rangeText(range: Pick<RecallTimeRange, 'since' | 'until'>): string {
  const { since, until } = range;
  if (since && until) {
    const from = formatDay(since);
    const to = formatDay(until);
    return from === to ? from : `${from} – ${to}`;
  }
  if (since) return `since ${formatDay(since)}`;
  if (until) return `until ${formatDay(until)}`;
  return 'any time';
}

/** The quiet note under the count when the question's own words set the range; null otherwise. */
export function questionRangeNote(range: RecallTimeRange | null | undefined): string | null {
  if (!range || range.source !== 'question' || (!range.since && !range.until)) return null;
  const text = rangeText(range);
  const within =
    range.since && range.until ? `Within ${text}` : text[0]!.toUpperCase() + text.slice(1);
  return `${within} (from your question)`;
}
