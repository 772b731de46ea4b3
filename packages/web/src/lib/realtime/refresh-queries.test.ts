import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { refreshQueries } from './refresh-queries';

/** A query function whose answers the test releases one by one. */
function controlledFetches() {
  const pending: ((value: string) => void)[] = [];
  const queryFn = () => new Promise<string>((resolve) => pending.push(resolve));
  return { queryFn, pending };
}

function watch(client: QueryClient, queryFn: () => Promise<string>) {
  const observer = new QueryObserver(client, { queryKey: ['entity', 'a', 'detail'], queryFn });
  const unsubscribe = observer.subscribe(() => undefined);
  return { observer, unsubscribe };
}

describe('refreshQueries', () => {
  it('loads again a first load that was under way when the change arrived', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const { queryFn, pending } = controlledFetches();
    const { observer, unsubscribe } = watch(client, queryFn);
    expect(pending).toHaveLength(1); // the first load, reading before the change

    const refreshed = refreshQueries(client, ['entity', 'a']);
    pending[0]?.('before the change');
    await vi.waitFor(() => expect(pending).toHaveLength(2));
    pending[1]?.('after the change');
    await refreshed;
    expect(observer.getCurrentResult().data).toBe('after the change');
    unsubscribe();
  });

  it('reloads a shown query once, and only marks a hidden one stale', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const { queryFn, pending } = controlledFetches();
    const { unsubscribe } = watch(client, queryFn);
    pending[0]?.('first');
    await vi.waitFor(() => expect(client.getQueryData(['entity', 'a', 'detail'])).toBe('first'));

    const refreshed = refreshQueries(client, ['entity']);
    expect(pending).toHaveLength(2);
    pending[1]?.('second');
    await refreshed;
    expect(pending).toHaveLength(2);

    unsubscribe();
    await refreshQueries(client, ['entity']);
    expect(pending).toHaveLength(2);
    expect(client.getQueryState(['entity', 'a', 'detail'])?.isInvalidated).toBe(true);
  });
});
