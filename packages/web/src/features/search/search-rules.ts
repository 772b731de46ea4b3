import { formatCount } from '@/lib/format';

/** Typing pauses this long before the question is asked. */
export const SEARCH_DEBOUNCE_MS = 250;

/**
 * Questions the empty screen offers to start from: the kinds recall answers
 * well (a time, a preference, a person, a thing), about no one in particular.
 */
export const EXAMPLE_QUESTIONS = [
  'When did the project start?',
  'What does the user prefer?',
  'Who works on the launch?',
  'Which tools does the team use?',
] as const;

/** '1 result', '12 results'. */
export function resultCountLabel(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'result' : 'results'}`;
}

/**
 * The result the arrow keys land on, by index; -1 is the query box itself.
 * Down from the box enters the list and stops at its end; Up from the first
 * result returns to the box.
 */
export function stepActive(current: number, step: 1 | -1, count: number): number {
  if (count === 0) return -1;
  const from = Math.min(current, count - 1);
  return Math.max(-1, Math.min(count - 1, from + step));
}
