import { ConnectionStatusBadge } from '@/components/connection-status-badge';
import { LiveNotifications } from '@/components/live-notifications';
import { useRealtime, type RealtimeValue } from '@/lib/realtime';

function explain({ status, connection }: RealtimeValue): string | undefined {
  const { reconnectAttempt, maxReconnectAttempts, stopReason } = connection;
  if (status === 'unknown') return 'Live updates need a personal API key';
  if (stopReason === 'unauthorized') return 'The server did not accept your API key';
  if (stopReason === 'gave-up') {
    return `Could not reconnect after ${maxReconnectAttempts} attempts`;
  }
  if (reconnectAttempt > 0) {
    return status === 'connecting'
      ? `Reconnecting, attempt ${reconnectAttempt} of ${maxReconnectAttempts}`
      : `Connection lost; retrying soon (attempt ${reconnectAttempt} of ${maxReconnectAttempts})`;
  }
  return undefined;
}

/** The header's connection badge; after the client stops retrying it offers to reconnect. */
export function RealtimeStatusBadge() {
  const realtime = useRealtime();
  const stopped =
    realtime.status === 'disconnected' &&
    (realtime.connection.stopReason === 'gave-up' ||
      realtime.connection.stopReason === 'unauthorized');
  return (
    <ConnectionStatusBadge
      status={realtime.status}
      detail={explain(realtime)}
      onRetry={stopped ? realtime.reconnect : undefined}
    />
  );
}

/** The live notifications of graph changes, fed by the realtime connection. */
export function RealtimeNotifications() {
  const { notifications, dismissNotification } = useRealtime();
  return <LiveNotifications notifications={notifications} onDismiss={dismissNotification} />;
}
