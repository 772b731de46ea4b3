import type { AnalyticsSummary } from '@engram/shared';
import { Activity, Boxes, FileText, Share2, type LucideIcon } from 'lucide-react';
import { Card } from '@/components/ui/card';
import { formatCount } from '../usage-rules';

interface StatCardProps {
  label: string;
  value: number;
  hint: string;
  icon: LucideIcon;
}

function StatCard({ label, value, hint, icon: Icon }: StatCardProps) {
  return (
    <Card className="p-4 sm:p-5" role="group" aria-label={label}>
      <div className="flex items-start justify-between gap-3">
        <p className="text-sm font-medium text-muted-foreground">{label}</p>
        <span className="hidden size-8 shrink-0 items-center justify-center rounded-md bg-primary-soft text-primary-soft-foreground sm:flex">
          <Icon className="size-4" aria-hidden />
        </span>
      </div>
      <p
        className="mt-1 text-2xl font-semibold tracking-tight tabular-nums"
        data-testid="stat-value"
      >
        {formatCount(value)}
      </p>
      <p className="mt-1 truncate text-xs text-muted-foreground">{hint}</p>
    </Card>
  );
}

/** The four totals: Total Entities, Relations, Observations, API Calls Today. */
export function StatCards({ summary }: { summary: AnalyticsSummary }) {
  const types = summary.entityTypeStats.length;
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
      <StatCard
        label="Total Entities"
        value={summary.totalEntities}
        icon={Boxes}
        hint={types === 0 ? 'No types yet' : types === 1 ? '1 type' : `${formatCount(types)} types`}
      />
      <StatCard
        label="Relations"
        value={summary.totalRelations}
        icon={Share2}
        hint="Between entities"
      />
      <StatCard
        label="Observations"
        value={summary.totalObservations}
        icon={FileText}
        hint="Facts recorded"
      />
      <StatCard
        label="API Calls Today"
        value={summary.todayApiCalls}
        icon={Activity}
        hint={`${formatCount(summary.monthlyUsage.total)} this month`}
      />
    </div>
  );
}
