import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { ConnectAgentPanel } from '@/components/connect-agent/connect-agent-panel';
import { RefreshButton } from '@/components/refresh-button';
import { Page } from '@/components/page';
import { Alert } from '@/components/ui/alert';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { liveQueryKeys } from '@/lib/realtime';
import { useAnalytics } from '../api/get-analytics';
import { emptySummary } from '../usage-rules';
import { CurrentUsage } from './current-usage';
import { QuickActions } from './quick-actions';
import { RecentActivity } from './recent-activity';
import { RecentEntities } from './recent-entities';
import { SemanticIndex } from './semantic-index';
import { StatCards } from './stat-cards';
import { UsageOverview } from './usage-overview';

/**
 * Knowledge Graph Dashboard (/dashboard; docs/product.md, The signed-in app): totals, recent
 * activity and entities, quick actions, usage against the plan. Loading,
 * loaded, or failed (a red alert over zeroed numbers on the free plan). Live:
 * its query sits under the `['analytics']` prefix that every graph event refreshes.
 */
export function DashboardPage() {
  const analytics = useAnalytics();
  const queryClient = useQueryClient();
  const [refreshing, setRefreshing] = useState(false);

  async function refresh() {
    setRefreshing(true);
    try {
      await Promise.all([
        queryClient.refetchQueries({ queryKey: liveQueryKeys.analytics }),
        queryClient.refetchQueries({ queryKey: liveQueryKeys.dashboard }),
      ]);
    } finally {
      setRefreshing(false);
    }
  }

  const failed = analytics.isError && !analytics.data;
  const summary = analytics.data ?? (failed ? emptySummary() : undefined);
  const busy = refreshing || analytics.isFetching;
  // A memory with nothing in it yet: connecting an agent is the first thing to do.
  const connectFirst = summary !== undefined && summary.accountEntities === 0;
  const connect = (
    <div id={CONNECT_ANCHOR} className="scroll-mt-20">
      <ConnectAgentPanel />
    </div>
  );
  useScrollToHash(summary !== undefined);

  return (
    // grid-cols-1 (minmax(0, 1fr)), not an auto column: a long entity name
    // truncates in its card instead of widening the page on a phone.
    <Page
      title="Knowledge Graph Dashboard"
      className="grid-cols-1"
      description="Monitor your AI memory platform activity and insights"
      actions={
        <RefreshButton onClick={() => void refresh()} disabled={refreshing} spinning={busy} />
      }
    >
      {failed ? <Alert variant="error">Failed to load dashboard data</Alert> : null}

      {summary === undefined ? (
        <Card
          role="status"
          className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
        >
          <Spinner />
          Loading dashboard...
        </Card>
      ) : (
        <>
          {connectFirst ? connect : null}
          <StatCards summary={summary} />
          <SemanticIndex status={summary.embeddings} />
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
            <RecentActivity activity={summary.activityStats} />
            <RecentEntities entities={summary.recentEntities} />
            <QuickActions />
          </div>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <CurrentUsage summary={summary} />
            <UsageOverview summary={summary} />
          </div>
          {connectFirst ? null : connect}
        </>
      )}
    </Page>
  );
}

/** Where Settings' "How to connect an app" lands (`/dashboard#connect`). */
const CONNECT_ANCHOR = 'connect';

/** Scrolls to the address's `#hash` once the page has drawn what it names (the router does not). */
function useScrollToHash(ready: boolean) {
  const { hash } = useLocation();
  useEffect(() => {
    if (!ready || !hash) return;
    document
      .getElementById(decodeURIComponent(hash.slice(1)))
      ?.scrollIntoView?.({ block: 'start' });
  }, [ready, hash]);
}
