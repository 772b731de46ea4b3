/**
 * The realtime client (docs/product.md, States): a framework-free connection
 * (`RealtimeClient`), live notifications (`NotificationQueue`), the query-key
 * prefixes that live updates refresh (`liveQueryKeys` — put every screen's
 * graph queries under them), and the React provider and hooks.
 */
export {
  describeEvent,
  LIVE_NOTIFICATION_TTL_MS,
  MAX_LIVE_NOTIFICATIONS,
  NotificationQueue,
  type LiveNotification,
} from './notifications';
export { parseServerMessage, readGraphEvent, type GraphEvent } from './messages';
export { ALL_LIVE_QUERY_KEYS, liveQueryKeys, queryKeysForEvent } from './query-keys';
export {
  RealtimeClient,
  realtimeUrl,
  type RealtimeSnapshot,
  type RealtimeStatus,
  type RealtimeStopReason,
  type SocketFactory,
  type SocketLike,
  type Timers,
} from './realtime-client';
export {
  RealtimeProvider,
  useEntitySubscription,
  useRealtime,
  type ConnectionStatus,
  type RealtimeValue,
} from './realtime-provider';
