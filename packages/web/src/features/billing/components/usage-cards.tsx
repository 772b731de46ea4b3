import type { Subscription } from '@engram/shared';
import { Activity, Gauge, type LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeadRow,
  TableRow,
} from '@/components/ui/table';
import { cn } from '@/lib/cn';
import { pluralize } from '@/lib/format';
import { useMonthlyUsage } from '../api/get-monthly-usage';
import { useTodayUsage } from '../api/get-today-usage';
import {
  EMPTY_MONTHLY_SUMMARY,
  formatLimit,
  formatPercent,
  USAGE_DETAILS_MAX,
  usageBreakdown,
} from '../billing-rules';

const OPERATION_LABELS: Record<string, string> = {
  query: 'Query',
  create: 'Create',
  update: 'Update',
  delete: 'Delete',
};

/** 'api_key' → 'Api key' → shown as 'API key'. */
function resourceLabel(resource: string): string {
  const words = resource.replace(/[_-]+/g, ' ');
  return (words.charAt(0).toUpperCase() + words.slice(1)).replace(/^Api\b/, 'API');
}

/** A usage card's title with its icon, and what the card shows. */
function IconHeader({
  icon: Icon,
  title,
  children,
}: {
  icon: LucideIcon;
  title: string;
  children: ReactNode;
}) {
  return (
    <CardHeader>
      <CardTitle className="flex items-center gap-2">
        <Icon className="size-4 text-muted-foreground" aria-hidden />
        {title}
      </CardTitle>
      <CardDescription>{children}</CardDescription>
    </CardHeader>
  );
}

/**
 * The usage cards: this month's breakdown with each kind's share, and the
 * first 5 operation details. When the calls fail the cards show empty data
 * and say so ('Failed to load usage data'; docs/product.md, Failures).
 */
export function UsageCards({ subscription }: { subscription: Subscription | undefined }) {
  const monthly = useMonthlyUsage();
  const today = useTodayUsage();
  const summary = monthly.data ?? EMPTY_MONTHLY_SUMMARY;
  const rows = usageBreakdown(summary);
  const failed = monthly.isError || today.isError;
  const limit = subscription?.features.maxQueries;
  const allowance = limit !== undefined && limit > 0 ? (summary.totalRequests / limit) * 100 : null;

  return (
    <>
      <Card role="region" aria-label="Monthly usage">
        <IconHeader icon={Gauge} title="Monthly Usage">
          Operations this month, by kind
        </IconHeader>
        <CardContent className="grid gap-4">
          {failed ? (
            <p className="text-sm text-destructive" role="alert">
              Failed to load usage data
            </p>
          ) : null}
          <ul className="grid gap-3" aria-label="Usage breakdown">
            {rows.map((row) => (
              <li
                key={row.key}
                className={cn('grid gap-1.5', row.key === 'total' && 'border-t border-border pt-3')}
                aria-label={row.label}
              >
                <div className="flex items-baseline justify-between gap-3 text-sm">
                  <span className={cn(row.key === 'total' ? 'font-semibold' : 'font-medium')}>
                    {row.label}
                  </span>
                  <span className="tabular-nums text-muted-foreground">
                    <span className="font-medium text-foreground" data-testid="usage-count">
                      {row.count.toLocaleString('en-US')}
                    </span>{' '}
                    ·{' '}
                    <span data-testid="usage-percent">
                      {formatPercent(Math.round(row.percent * 10) / 10)}
                    </span>
                  </span>
                </div>
                {row.key === 'total' ? null : (
                  <div className="h-1.5 overflow-hidden rounded-full bg-muted" aria-hidden>
                    <div
                      className="h-full rounded-full bg-primary"
                      style={{ width: `${row.percent}%` }}
                    />
                  </div>
                )}
              </li>
            ))}
          </ul>
          {limit !== undefined ? (
            <p className="text-xs text-muted-foreground tabular-nums" data-testid="usage-allowance">
              {summary.totalRequests.toLocaleString('en-US')} of {formatLimit(limit)} operations
              this month
              {allowance !== null ? ` (${formatPercent(Math.round(allowance * 10) / 10)})` : ''}
            </p>
          ) : null}
          <p className="text-xs text-muted-foreground tabular-nums" data-testid="usage-today">
            Today: {pluralize(today.data?.total ?? 0, 'operation')} (
            {pluralize(today.data?.queries ?? 0, 'query', 'queries')},{' '}
            {pluralize(today.data?.creates ?? 0, 'create')},{' '}
            {pluralize(today.data?.updates ?? 0, 'update')},{' '}
            {pluralize(today.data?.deletes ?? 0, 'delete')})
          </p>
          {/* What the server meters (usage.routes.ts, the MCP tools); worded for people. */}
          <p className="text-xs text-muted-foreground" data-testid="usage-what-counts">
            What counts: each successful read or change of your entities, observations, relations,
            graph or API keys, from this app, the REST API or an agent over MCP. Signing in,
            billing, settings and usage figures don&apos;t count, nor do failed requests.
          </p>
        </CardContent>
      </Card>

      <Card role="region" aria-label="Operation details">
        <IconHeader icon={Activity} title="Operation Details">
          The most requested operations this month
        </IconHeader>
        <CardContent className="px-0 pb-2">
          {summary.details.length === 0 ? (
            <div className="mx-6 mb-4 flex flex-col items-center rounded-lg border border-dashed border-border px-4 py-8 text-center">
              <Activity className="size-5 text-muted-foreground" aria-hidden />
              <p className="mt-2 text-sm font-medium">No operations this month</p>
              <p className="mt-1 max-w-xs text-xs text-muted-foreground">
                Reads and changes made through the REST API, MCP or this app show here, with their
                average response time.
              </p>
            </div>
          ) : (
            <Table>
              <TableHeadRow>
                <TableHead className="pl-6">Operation</TableHead>
                {/* On a phone the resource goes under the operation, so every column fits. */}
                <TableHead className="hidden sm:table-cell">Resource</TableHead>
                <TableHead className="text-right">Avg Response</TableHead>
                <TableHead className="pr-6 text-right">Requests</TableHead>
              </TableHeadRow>
              <TableBody>
                {summary.details.slice(0, USAGE_DETAILS_MAX).map((detail) => (
                  <TableRow
                    key={`${detail.operation_type}:${detail.resource_type}`}
                    data-testid="usage-detail"
                  >
                    <TableCell className="pl-6 font-medium">
                      {OPERATION_LABELS[detail.operation_type] ?? detail.operation_type}
                      <span className="block text-xs font-normal text-muted-foreground sm:hidden">
                        {resourceLabel(detail.resource_type)}
                      </span>
                    </TableCell>
                    <TableCell className="hidden sm:table-cell">
                      {resourceLabel(detail.resource_type)}
                    </TableCell>
                    <TableCell className="text-right whitespace-nowrap tabular-nums">
                      {detail.avg_response_time.toFixed(1)} ms
                    </TableCell>
                    <TableCell className="pr-6 text-right tabular-nums">
                      {detail.request_count.toLocaleString('en-US')}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </CardContent>
      </Card>
    </>
  );
}
