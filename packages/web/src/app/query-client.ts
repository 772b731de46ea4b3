import { QueryClient, replaceEqualDeep } from '@tanstack/react-query';
import { ApiError } from '@/lib/api-client';

/** A 4xx will answer the same on retry; only network trouble and 5xx are worth another try. */
function shouldRetry(failureCount: number, error: Error): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

/**
 * TanStack's structural sharing, which also sees the order of keys. Its
 * `replaceEqualDeep` keeps the old object when only the order of its keys
 * changed, so metadata whose keys an edit moved would still show in the old
 * order (a card's first three pairs). Then the new data is taken whole.
 */
export function shareKeepingOrder(previous: unknown, next: unknown): unknown {
  const shared = replaceEqualDeep(previous, next);
  return sameKeyOrder(shared, next) ? shared : next;
}

/**
 * Whether `a` (what replaceEqualDeep made of `b`, so equal to it) lists its
 * keys in the same order as `b`, at every depth.
 */
function sameKeyOrder(a: unknown, b: unknown): boolean {
  if (a === b || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return true;
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every(
      (key, index) =>
        key === bKeys[index] &&
        sameKeyOrder((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

/**
 * No refresh on a timer, on window focus or on coming back online: most
 * reads are metered operations (docs/security.md, "Usage counts"), and an
 * idle open tab must spend none. The realtime feed keeps the graph's queries
 * fresh instead (every change refreshes the queries under `liveQueryKeys`, a
 * reconnect replays what was missed or reloads them all), and a screen's
 * queries load again when it is shown after `staleTime`. A query that costs
 * no operation may opt back in (the dashboard's usage does).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        staleTime: 30_000,
        structuralSharing: shareKeepingOrder,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
      },
      mutations: { retry: false },
    },
  });
}
