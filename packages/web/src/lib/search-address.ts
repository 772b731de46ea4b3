/**
 * The Search screen's address for a question asked elsewhere (the header's
 * search field): `/search?q=<text>`. The navigation carries a fresh mark in
 * its state, so a Search screen already open takes the new question into its
 * box instead of writing its own back over it.
 */
export const ASKED_ELSEWHERE = 'engram.askedElsewhere';

export function searchPath(question: string): string {
  const asked = question.trim();
  return asked ? `/search?${new URLSearchParams({ q: asked }).toString()}` : '/search';
}

let asks = 0;

/** The navigation state of a question asked elsewhere (a new mark each time). */
export function askedElsewhereState(): Record<string, number> {
  asks += 1;
  return { [ASKED_ELSEWHERE]: asks };
}

/** The mark in a location's state, if the question was asked elsewhere. */
export function askedElsewhereMark(state: unknown): number | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const mark = (state as Record<string, unknown>)[ASKED_ELSEWHERE];
  return typeof mark === 'number' ? mark : undefined;
}
