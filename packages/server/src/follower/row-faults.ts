/**
 * Which of a follower's failures belong to a row (generalised from the
 * duplicate finder's): such a row is recorded, skipped and logged, and the
 * worker goes on with the others. Any other failure (the database
 * unreachable, busy or timed out) fails the run, which is tried again later.
 */

/** What a skipped row's log line names: ids and the error's kind, never a row's or a message's text. */
export interface RowFailure {
  /** The worker that skipped it, as its logs name it ('duplicate finder'). */
  worker: string;
  spaceId: string;
  entityId: string;
  reason: string;
}

/** Said of a row the process stopped on twice (the second time handled alone). */
export const STOPPED_ON_IT = 'the process stopped while comparing it';

/**
 * A failure a row's content causes: an error of the worker's own reading
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

/**
 * Handles `ids` together, and when a row's fault fails them, each alone:
 * each one that fails alone goes to `failed` (with its reason) and the
 * others are done. Any other error is thrown. `alone` runs before each lone
 * try (a note that survives a crash: `together: false` starts with them),
 * and `stop` ends the lone tries early.
 */
export async function guarded<T>(
  ids: T[],
  handle: (ids: T[]) => Promise<void>,
  options: {
    failed: (id: T, reason: string) => Promise<void>;
    together?: boolean;
    alone?: (id: T) => Promise<void>;
    stop?: () => boolean;
  },
): Promise<void> {
  if (options.together !== false) {
    try {
      return await handle(ids);
    } catch (error) {
      if (options.stop?.() || !isRowFault(error)) throw error;
      if (ids.length === 1) return options.failed(ids[0]!, reasonOf(error));
    }
  }
  for (const id of ids) {
    if (options.stop?.()) return;
    await options.alone?.(id);
    try {
      await handle([id]);
    } catch (error) {
      if (options.stop?.() || !isRowFault(error)) throw error;
      await options.failed(id, reasonOf(error));
    }
  }
}
