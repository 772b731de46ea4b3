import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import {
  createContext,
  use,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { readAccountId, subscribeToAccountId } from '../account/account-store';
import { TAB_CLIENT_ID } from '../client-id';
import { CURRENT_USER_KEY, useSession } from '../session';
import { useSpaceSlug } from '../space';
import { NotificationQueue, type LiveNotification } from './notifications';
import { ALL_LIVE_QUERY_KEYS, queryKeysForEvent } from './query-keys';
import {
  RealtimeClient,
  realtimeUrl,
  type RealtimeSnapshot,
  type SocketFactory,
  type Timers,
} from './realtime-client';
import { refreshQueries } from './refresh-queries';

/** The badge's states (docs/product.md, States): the client's four, plus 'unknown' when there is no client. */
export type ConnectionStatus = RealtimeSnapshot['status'] | 'unknown';

export interface RealtimeValue {
  /** 'unknown' while realtime is off (no provider, or the user has no API key). */
  status: ConnectionStatus;
  connection: RealtimeSnapshot;
  /** Newest first, at most 5, each gone after 10 s. */
  notifications: readonly LiveNotification[];
  dismissNotification: (id: string) => void;
  /** Follows one entity's changes; call the returned function to stop. */
  subscribeToEntity: (entityId: string) => () => void;
  /** Sends a client message; dropped with a warning while disconnected. */
  send: (type: string, payload?: Record<string, unknown>) => boolean;
  /** Tries to connect again now (after giving up or a refused key). */
  reconnect: () => void;
}

/** Changes arriving together (a replay after reconnecting) refresh each query once. */
const INVALIDATE_BATCH_MS = 50;

const OFF: RealtimeValue = {
  status: 'unknown',
  connection: {
    status: 'disconnected',
    enabled: false,
    reconnectAttempt: 0,
    maxReconnectAttempts: 0,
    stopReason: null,
  },
  notifications: [],
  dismissNotification: () => undefined,
  subscribeToEntity: () => () => undefined,
  send: () => false,
  reconnect: () => undefined,
};

const RealtimeContext = createContext<RealtimeValue | null>(null);

export interface RealtimeProviderProps {
  children: ReactNode;
  /** The id this tab sends with its requests (tests pass their own). */
  clientId?: string;
  /** Tests pass a fake WebSocket; the browser's is the default. */
  createSocket?: SocketFactory;
  timers?: Timers;
}

/**
 * Holds the realtime connection of the signed-in user (docs/product.md, States): connected
 * while the session has a user with an apiKey, replaced when the key changes,
 * closed on unmount. Each graph event refreshes the queries it affects (see
 * `liveQueryKeys`); one made elsewhere (another tab, an agent, the API) also
 * becomes a live notification, while this tab's own changes (their events
 * carry its `clientId` as origin) already had their toast.
 */
export function RealtimeProvider({
  children,
  clientId = TAB_CLIENT_ID,
  createSocket,
  timers,
}: RealtimeProviderProps) {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const apiKey = user?.apiKey ?? null;
  const space = useSpaceSlug();
  // The key is the person's key in this account; the address names the account too.
  const accountId = useSyncExternalStore(subscribeToAccountId, readAccountId);

  const [client] = useState(
    () =>
      new RealtimeClient({
        url: (key, followed) => realtimeUrl(key, window.location, followed, readAccountId()),
        ...(createSocket ? { createSocket } : {}),
        ...(timers ? { timers } : {}),
      }),
  );
  const [queue] = useState(() => new NotificationQueue(timers ? { timers } : {}));

  // Another account reconnects, even should the key read there be the same.
  useEffect(() => {
    client.setApiKey(apiKey);
    return () => client.setApiKey(null);
  }, [client, apiKey, accountId]);

  // The feed follows the shown space (before the key's effect above opens the first socket).
  useLayoutEffect(() => {
    client.setSpace(space);
  }, [client, space]);

  // Events: a notification each, and the affected queries refreshed (batched).
  useEffect(() => {
    const pending = new Map<string, QueryKey>();
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      flushTimer = undefined;
      const keys = [...pending.values()];
      pending.clear();
      for (const queryKey of keys) void refreshQueries(queryClient, queryKey);
    };
    const refresh = (keys: readonly QueryKey[]) => {
      for (const key of keys) pending.set(JSON.stringify(key), key);
      flushTimer ??= setTimeout(flush, INVALIDATE_BATCH_MS);
    };
    const offEvent = client.onGraphEvent((event) => {
      // A change this tab made was announced by its own toast: one notice per change.
      if (event.origin !== clientId) queue.addEvent(event);
      refresh(queryKeysForEvent(event));
    });
    const offResync = client.onResync(() => refresh(ALL_LIVE_QUERY_KEYS));
    return () => {
      offEvent();
      offResync();
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      queue.clear();
    };
  }, [client, queue, queryClient, clientId]);

  const connection = useSyncExternalStore(client.subscribe, client.getSnapshot);
  const notifications = useSyncExternalStore(queue.subscribe, queue.getSnapshot);

  // A refused key may have been replaced elsewhere (e.g. in another tab): reload
  // the user once per key; a new key reconnects through the effect above. A
  // socket closed as refused after it was connected, whose key is still the
  // person's, had its membership change (a new role: decision 028 closes it to
  // be opened again with that role): it tries once more.
  const refreshedForKey = useRef<string | null>(null);
  const wasConnected = useRef(false);
  useEffect(() => {
    if (connection.status === 'connected') {
      wasConnected.current = true;
      refreshedForKey.current = null;
      return;
    }
    if (connection.stopReason !== 'unauthorized' || apiKey === null) return;
    if (refreshedForKey.current === apiKey) return;
    refreshedForKey.current = apiKey;
    const closedWhileConnected = wasConnected.current;
    wasConnected.current = false;
    void queryClient.invalidateQueries({ queryKey: CURRENT_USER_KEY }).then(() => {
      if (closedWhileConnected && client.getSnapshot().stopReason === 'unauthorized') {
        client.reconnect();
      }
    });
  }, [connection.status, connection.stopReason, apiKey, queryClient, client]);

  // Back online: try again at once instead of waiting out (or having spent) the retries.
  useEffect(() => {
    const online = () => {
      const { status, stopReason } = client.getSnapshot();
      if (status === 'disconnected' && stopReason !== 'unauthorized') client.reconnect();
    };
    window.addEventListener('online', online);
    return () => window.removeEventListener('online', online);
  }, [client]);

  // Stable across renders, so effects that depend on them do not re-run on every update.
  const actions = useMemo(
    () => ({
      dismissNotification: (id: string) => queue.dismiss(id),
      subscribeToEntity: (entityId: string) => client.subscribeToEntity(entityId),
      send: (type: string, payload?: Record<string, unknown>) => client.send(type, payload),
      reconnect: () => client.reconnect(),
    }),
    [client, queue],
  );

  const value = useMemo<RealtimeValue>(
    () => ({
      ...actions,
      status: connection.enabled ? connection.status : 'unknown',
      connection,
      notifications,
    }),
    [actions, connection, notifications],
  );

  return <RealtimeContext value={value}>{children}</RealtimeContext>;
}

/**
 * The realtime connection: status for the badge, live notifications, entity
 * subscriptions. Outside a RealtimeProvider it reports 'unknown' and does
 * nothing, so a screen can be rendered on its own in tests.
 */
export function useRealtime(): RealtimeValue {
  return use(RealtimeContext) ?? OFF;
}

/** Follows one entity's changes while the calling component is shown. */
export function useEntitySubscription(entityId: string | undefined): void {
  const { subscribeToEntity } = useRealtime();
  useEffect(() => {
    if (!entityId) return;
    return subscribeToEntity(entityId);
  }, [entityId, subscribeToEntity]);
}
