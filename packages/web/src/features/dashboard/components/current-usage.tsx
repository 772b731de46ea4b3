import { UNLIMITED, USAGE_WARNING_PERCENT, type AnalyticsSummary } from '@engram/shared';
import { ArrowUpRight, CircleAlert, Sparkles, TriangleAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Card, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { cn } from '@/lib/cn';
import { formatCount, progressBar, upgradeHint, usagePercent, usageWarning } from '../usage-rules';

const SALES_EMAIL = 'sales@engram.dev';

interface MeterProps {
  label: string;
  used: number;
  limit: number;
}

/** One limit of the plan: used of allowed, with a bar capped at 100% that turns red past it. */
function UsageMeter({ label, used, limit }: MeterProps) {
  const percent = usagePercent(used, limit);
  const bar = progressBar(percent);
  const unavailable = limit === 0;
  const unlimited = limit === UNLIMITED;
  const value = unavailable
    ? 'Not available'
    : unlimited
      ? `${formatCount(used)} · Unlimited`
      : `${formatCount(used)} / ${formatCount(limit)}`;
  return (
    <div className="grid gap-1.5">
      <div className="flex items-baseline justify-between gap-3 text-sm">
        <span className="font-medium">{label}</span>
        <span
          className={cn(
            'tabular-nums text-muted-foreground',
            bar.over && 'font-medium text-destructive',
          )}
        >
          {value}
        </span>
      </div>
      {unavailable ? null : (
        <div
          role="progressbar"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(bar.width)}
          aria-valuetext={percent === null ? value : `${Math.round(percent)}% (${value})`}
          data-over={bar.over}
          className="h-2 overflow-hidden rounded-full bg-muted"
        >
          <div
            className={cn(
              'h-full rounded-full transition-[width] duration-500',
              bar.over
                ? 'bg-destructive'
                : percent !== null && percent >= USAGE_WARNING_PERCENT
                  ? 'bg-amber-500'
                  : 'bg-primary',
            )}
            style={{ width: `${bar.width}%` }}
          />
        </div>
      )}
    </div>
  );
}

function Notice({
  tone,
  title,
  children,
}: {
  tone: 'warning' | 'critical' | 'hint';
  title: string;
  children: ReactNode;
}) {
  const Icon = tone === 'critical' ? CircleAlert : tone === 'warning' ? TriangleAlert : Sparkles;
  return (
    <div
      role={tone === 'hint' ? 'note' : 'alert'}
      aria-label={title}
      className={cn(
        'flex items-start gap-2.5 rounded-lg border px-3 py-2.5 text-sm',
        tone === 'critical' &&
          'border-destructive/30 bg-destructive-soft text-destructive-soft-foreground',
        tone === 'warning' && 'border-amber-500/30 bg-warning-soft text-warning-soft-foreground',
        tone === 'hint' && 'border-primary/20 bg-primary-soft text-primary-soft-foreground',
      )}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0">
        <p className="font-semibold">{title}</p>
        <div className="mt-0.5">{children}</div>
      </div>
    </div>
  );
}

/** The usage notice under the bars (docs/product.md, Forms): 'Limit Exceeded' at 95%, 'Approaching Limits' at 80%, else the next plan. */
function UsageNotice({ summary }: { summary: AnalyticsSummary }) {
  const warning = usageWarning(summary.accountEntities, summary.plan.limits.entities);
  const limit = formatCount(summary.plan.limits.entities);
  if (warning.level === 'critical') {
    return (
      <Notice tone="critical" title="Limit Exceeded">
        <p>
          {formatCount(summary.accountEntities)} of {limit} entities on the {summary.plan.name}{' '}
          plan.
        </p>
        <p className="mt-1">
          Upgrade now to avoid service interruption.{' '}
          <Link to="/billing" className="font-medium underline underline-offset-4">
            Upgrade
          </Link>
        </p>
      </Notice>
    );
  }
  if (warning.level === 'warning') {
    return (
      <Notice tone="warning" title="Approaching Limits">
        <p>
          You have used {Math.floor(warning.percent)}% of your {summary.plan.name} plan’s {limit}{' '}
          entities.{' '}
          <Link to="/billing" className="font-medium underline underline-offset-4">
            Review plans
          </Link>
        </p>
      </Notice>
    );
  }
  const hint = upgradeHint(summary.userPlan);
  if (hint.kind === 'enterprise') {
    return (
      <Notice tone="hint" title="Need more capacity?">
        <p>
          Consider Enterprise for custom limits —{' '}
          <a
            href={`mailto:${SALES_EMAIL}?subject=${encodeURIComponent('Engram Enterprise')}`}
            className="font-medium underline underline-offset-4"
          >
            contact sales
          </a>
          .
        </p>
      </Notice>
    );
  }
  return (
    <Notice tone="hint" title="Need more capacity?">
      <p>
        Consider upgrading to {hint.name} for {hint.price}.{' '}
        <Link
          to="/billing"
          className="inline-flex items-center gap-0.5 font-medium underline underline-offset-4"
        >
          See plans
          <ArrowUpRight className="size-3.5" aria-hidden />
        </Link>
      </p>
    </Notice>
  );
}

/** Current Usage: the plan's limits with progress bars, and the usage notice. */
export function CurrentUsage({ summary }: { summary: AnalyticsSummary }) {
  const { limits } = summary.plan;
  return (
    <Card className="flex flex-col">
      <CardHeader className="pb-4">
        <CardTitle>Current Usage</CardTitle>
        <CardDescription>
          Against your <span className="font-medium text-foreground">{summary.plan.name}</span>{' '}
          plan’s limits
        </CardDescription>
      </CardHeader>
      <div className="grid gap-4 px-6 pb-6">
        <UsageMeter label="Entities" used={summary.accountEntities} limit={limits.entities} />
        <UsageMeter
          label="Operations this month"
          used={summary.operationsThisMonth}
          limit={limits.operationsPerMonth}
        />
        <UsageMeter label="API Keys" used={summary.apiKeyCount} limit={limits.apiKeys} />
        <UsageMeter label="Webhooks" used={summary.webhookCount} limit={limits.webhooks} />
        <UsageNotice summary={summary} />
      </div>
    </Card>
  );
}
