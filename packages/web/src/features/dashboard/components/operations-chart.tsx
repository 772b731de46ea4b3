import type { AnalyticsSummary } from '@engram/shared';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount, formatDay, monthDays } from '../usage-rules';

interface TooltipProps {
  active?: boolean;
  payload?: { payload: ReturnType<typeof monthDays>[number] }[];
}

function DayTooltip({ active, payload }: TooltipProps) {
  const day = payload?.[0]?.payload;
  if (!active || !day) return null;
  return (
    <div className="rounded-md border border-border bg-popover px-2.5 py-1.5 text-xs shadow-md">
      <p className="font-medium text-foreground">{formatDay(day.date)}</p>
      <p className="text-muted-foreground">
        {formatCount(day.total)} operation{day.total === 1 ? '' : 's'} · {formatCount(day.queries)}{' '}
        reads, {formatCount(day.writes)} writes
      </p>
    </div>
  );
}

/** Operations per day of this month (UTC), reads and writes stacked. */
export default function OperationsChart({ days }: { days: AnalyticsSummary['dailyOperations'] }) {
  const data = monthDays(days);
  const total = data.reduce((sum, day) => sum + day.total, 0);
  // The 1st, every 5th day and today: a steady rhythm however far the month is.
  const last = data.length;
  const ticks = data
    .map((entry) => entry.day)
    .filter((day) => day === 1 || day === last || (day % 5 === 0 && last - day >= 2));
  return (
    <figure
      className="h-36 w-full"
      aria-label={`Operations per day this month: ${formatCount(total)} in all`}
      data-testid="operations-chart"
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart
          data={data}
          margin={{ top: 4, right: 0, bottom: 0, left: -28 }}
          barCategoryGap="20%"
        >
          <CartesianGrid vertical={false} stroke="var(--border)" />
          <XAxis
            dataKey="day"
            tickLine={false}
            axisLine={false}
            tick={{ fontSize: 11, fill: 'var(--muted-foreground)' }}
            ticks={ticks}
            interval={0}
          />
          <YAxis
            allowDecimals={false}
            tickLine={false}
            axisLine={false}
            width={56}
            tick={{ fontSize: 11, fill: 'var(--muted-foreground)' }}
            tickFormatter={(value: number) =>
              value >= 1000 ? `${Math.round(value / 100) / 10}k` : String(value)
            }
          />
          <Tooltip cursor={{ fill: 'var(--muted)' }} content={<DayTooltip />} />
          <Bar dataKey="writes" stackId="ops" fill="var(--primary)" isAnimationActive={false} />
          <Bar
            dataKey="queries"
            stackId="ops"
            fill="var(--ring)"
            fillOpacity={0.45}
            radius={[3, 3, 0, 0]}
            isAnimationActive={false}
          />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
