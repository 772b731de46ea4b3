/**
 * Which of the duplicate finder's failures belong to a row (docs/consolidation.md,
 * "Background upkeep"): such a row is recorded and skipped, and the finder
 * goes on with the others; any other failure (the database unreachable,
 * busy or timed out) fails the run, which is tried again later.
 */

/** What the finder's log line names: never a name's or an error message's text. */
export interface RowFailure {
  worker: 'duplicate finder';
  spaceId: string;
  entityId: string;
  reason: string;
}

/** Said of an entity the process stopped on twice (the second time compared alone). */
export const STOPPED_ON_IT = 'the process stopped while comparing it';

/**
 * A failure a row's content causes: an error of the finder's own reading
 * (a value of an unexpected shape, a string or list too long), or the
 * database refusing the row's data (SQLSTATE classes 22, data exception;
 * 23, integrity; 54, a limit such as an index row's size).
 */
export function isRowFault(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/** The reason recorded and logged: the error's kind and code, never its message (it may quote a name). */
export function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const kind = error instanceof Error ? error.name : typeof error;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? `${kind} ${code}` : kind;
}
