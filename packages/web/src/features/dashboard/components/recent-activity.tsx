import type { AnalyticsSummary } from '@engram/shared';
import { RECENT_ACTIVITY_DAYS } from '@engram/shared';
import { CalendarDays } from 'lucide-react';
import { Card, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { cn } from '@/lib/cn';
import { useRealtime } from '@/lib/realtime';
import { formatDay } from '../usage-rules';
import { CardList } from './card-list';

/** Shows that the list follows changes as they happen while the realtime connection is up. */
function LiveBadge() {
  const { status } = useRealtime();
  const live = status === 'connected';
  return (
    <span
      className={cn(
        'inline-flex items-center gap-1.5 rounded-md border px-2 py-0.5 text-xs font-medium',
        live
          ? 'border-transparent bg-success-soft text-success-soft-foreground'
          : 'border-border bg-muted text-muted-foreground',
      )}
      title={live ? 'Updates as changes happen' : 'Live updates resume when the connection is back'}
      data-live={live}
    >
      <span
        aria-hidden
        className={cn(
          'size-1.5 rounded-full',
          live ? 'animate-pulse bg-success' : 'bg-zinc-400 dark:bg-zinc-500',
        )}
      />
      Live
    </span>
  );
}

/** Up to 7 daily entries, '{count} entities created' with a date; 'No recent activity'. */
export function RecentActivity({ activity }: { activity: AnalyticsSummary['activityStats'] }) {
  const entries = activity.slice(0, RECENT_ACTIVITY_DAYS);
  return (
    <Card className="flex flex-col">
      <CardHeader className="flex-row items-start justify-between gap-2 pb-3">
        <div>
          <CardTitle>Recent Activity</CardTitle>
          <CardDescription>Entities created per day</CardDescription>
        </div>
        <LiveBadge />
      </CardHeader>
      <CardList
        items={entries}
        label="Recent activity"
        icon={CalendarDays}
        empty="No recent activity"
      >
        {(entry) => (
          <li key={entry.date} className="flex items-center gap-3 rounded-md py-1.5 text-sm">
            <span className="flex size-7 shrink-0 items-center justify-center rounded-md bg-muted text-muted-foreground">
              <CalendarDays className="size-4" aria-hidden />
            </span>
            <span className="min-w-0 flex-1 truncate font-medium">
              {/* The template word for word, '1 entities created' included (decision 007). */}
              {`${entry.count} entities created`}
            </span>
            <time dateTime={entry.date} className="shrink-0 text-xs text-muted-foreground">
              {formatDay(entry.date)}
            </time>
          </li>
        )}
      </CardList>
    </Card>
  );
}
