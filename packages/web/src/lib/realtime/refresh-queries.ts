import type { QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * Makes the queries under `queryKey` stale and reloads those being shown,
 * like `invalidateQueries`, and also reloads a first load that was already
 * under way: TanStack joins it instead of starting another, yet it may have
 * read before the change (a dialog opened just before an agent's write would
 * otherwise keep showing the old entity).
 */
export async function refreshQueries(queryClient: QueryClient, queryKey: QueryKey): Promise<void> {
  const firstLoads = queryClient
    .getQueryCache()
    .findAll({ queryKey, fetchStatus: 'fetching', predicate: (q) => q.state.data === undefined });
  await queryClient.invalidateQueries({ queryKey });
  await Promise.all(
    firstLoads.map((query) =>
      queryClient.refetchQueries({ queryKey: query.queryKey, exact: true, type: 'active' }),
    ),
  );
}
