import type { AnalyticsSummary } from '@engram/shared';
import { ArrowRight } from 'lucide-react';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatCount, formatDay } from '../usage-rules';

// The charting library is the screen's largest part: load it after the numbers.
const OperationsChart = lazy(() => import('./operations-chart'));

/** Usage Overview: this month's operations by kind, a daily chart, and billing. */
export function UsageOverview({ summary }: { summary: AnalyticsSummary }) {
  const usage = summary.monthlyUsage;
  const kinds = [
    ['Queries', usage.queries],
    ['Creates', usage.creates],
    ['Updates', usage.updates],
    ['Deletes', usage.deletes],
  ] as const;
  const resets = formatDay(summary.usageResetsAt.slice(0, 10));
  return (
    <Card className="flex flex-col">
      <CardHeader className="flex-row items-start justify-between gap-2 pb-4">
        <div>
          <CardTitle>Usage Overview</CardTitle>
          <CardDescription>This month’s operations · resets {resets}</CardDescription>
        </div>
        <Badge variant="accent">{summary.plan.name} plan</Badge>
      </CardHeader>
      <div className="grid flex-1 gap-4 px-6 pb-5">
        <div>
          <p className="text-2xl font-semibold tracking-tight tabular-nums">
            {formatCount(usage.total)}
          </p>
          <p className="text-xs text-muted-foreground">operations this month</p>
        </div>
        <dl className="grid grid-cols-4 gap-2">
          {kinds.map(([label, value]) => (
            <div key={label} className="rounded-md bg-muted px-2 py-1.5">
              <dt className="truncate text-xs text-muted-foreground">{label}</dt>
              <dd className="text-sm font-semibold tabular-nums">{formatCount(value)}</dd>
            </div>
          ))}
        </dl>
        <Suspense fallback={<div className="h-36 w-full rounded-md bg-muted/50" aria-hidden />}>
          <OperationsChart days={summary.dailyOperations} />
        </Suspense>
      </div>
      <div className="border-t border-border px-6 py-3">
        <Button asChild variant="ghost" size="sm" className="-ml-3 text-primary hover:text-primary">
          <Link to="/billing">
            View Full Billing Details
            <ArrowRight aria-hidden />
          </Link>
        </Button>
      </div>
    </Card>
  );
}
