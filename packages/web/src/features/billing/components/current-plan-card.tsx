import type { BillingPlan, Subscription } from '@engram/shared';
import { CalendarClock, CircleAlert, Info, RotateCcw } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { formatCents } from '@/lib/format';
import {
  billingDateLine,
  FREE_PLAN,
  formatBillingDate,
  isMostPopular,
  planChangesNotice,
  statusLabel,
  statusTone,
} from '../billing-rules';
import { ToneBadge } from './tone-badge';

interface CurrentPlanCardProps {
  subscription: Subscription;
  /** The plan's catalog entry (price and interval), once plans are loaded. */
  plan: BillingPlan | undefined;
  onChangePlan: () => void;
  onCancel: () => void;
  onReactivate: () => void;
  reactivating: boolean;
  /** Not an owner: the plan is shown, its buttons held back (docs/product.md, Calls). */
  readOnly?: boolean;
}

/** 'active' green, anything else orange (docs/product.md, The signed-in app). */
export function StatusBadge({ status }: { status: string }) {
  const active = statusTone(status) === 'active';
  return (
    <ToneBadge good={active}>
      <span
        className={cn('size-1.5 rounded-full', active ? 'bg-success' : 'bg-orange-500')}
        aria-hidden
      />
      {statusLabel(status)}
    </ToneBadge>
  );
}

function priceLine(plan: BillingPlan | undefined): string | null {
  if (!plan || plan.price === 0) return null;
  return `${formatCents(plan.price)} / ${plan.interval === 'year' ? 'year' : 'month'}`;
}

/** The current plan, its status, its date, and what can be done with it. */
export function CurrentPlanCard({
  subscription,
  plan,
  onChangePlan,
  onCancel,
  onReactivate,
  reactivating,
  readOnly = false,
}: CurrentPlanCardProps) {
  const dateLine = billingDateLine(subscription);
  const paid = subscription.plan !== FREE_PLAN;
  const price = priceLine(plan);
  const notice = planChangesNotice(subscription);
  const byOperator = subscription.planChanges === 'operator';
  return (
    <Card className="flex flex-col" role="region" aria-label="Current plan">
      <div className="flex flex-col gap-4 p-6">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <p className="text-xs font-medium tracking-wide text-muted-foreground uppercase">
              Current plan
            </p>
            <div className="mt-1 flex flex-wrap items-center gap-2">
              <h2 className="text-xl font-semibold tracking-tight" data-testid="current-plan-name">
                {subscription.name}
              </h2>
              {isMostPopular(subscription.plan) ? (
                <Badge variant="accent">Most Popular</Badge>
              ) : null}
              <StatusBadge status={subscription.status} />
            </div>
            {price ? (
              <p className="mt-1 text-sm text-muted-foreground tabular-nums">{price}</p>
            ) : null}
          </div>
          <div className="flex flex-wrap gap-2">
            <Button onClick={onChangePlan} disabled={readOnly}>
              Change Plan
            </Button>
            {paid && !subscription.cancelAtPeriodEnd ? (
              <Button variant="outline" onClick={onCancel} disabled={readOnly}>
                Cancel Subscription
              </Button>
            ) : null}
            {subscription.cancelAtPeriodEnd ? (
              <Button variant="outline" onClick={onReactivate} disabled={readOnly || reactivating}>
                {reactivating ? <Spinner /> : <RotateCcw aria-hidden />}
                Reactivate
              </Button>
            ) : null}
          </div>
        </div>

        <div className="flex items-center gap-2 text-sm">
          <CalendarClock className="size-4 shrink-0 text-muted-foreground" aria-hidden />
          {dateLine ? (
            <p data-testid="billing-date">
              <span className="text-muted-foreground">{dateLine.label}</span>{' '}
              <span className="font-medium">{dateLine.date}</span>
            </p>
          ) : (
            <p className="text-muted-foreground">No upcoming payments on the Free plan</p>
          )}
        </div>

        <LimitsNotice subscription={subscription} />
      </div>
      {notice ? (
        // Who changes the plan: said in full, and more plainly when it is not the person here.
        <p
          data-testid="plan-changes"
          className={cn(
            'mt-auto flex items-start gap-2 border-t border-border px-6 py-3',
            byOperator ? 'text-sm text-foreground' : 'text-xs text-muted-foreground',
          )}
        >
          <Info
            className={cn('shrink-0', byOperator ? 'mt-0.5 size-4' : 'mt-px size-3.5')}
            aria-hidden
          />
          {notice}
        </p>
      ) : null}
    </Card>
  );
}

/**
 * When the limits in force are not the plan's (a lapse), or a downgrade is
 * scheduled for the period end (a cancellation says so on the date line).
 */
function LimitsNotice({ subscription }: { subscription: Subscription }) {
  const { limitsPlan, scheduledChange } = subscription;
  const lapsed = limitsPlan.id !== subscription.plan && limitsPlan.id === FREE_PLAN;
  const downgrade = scheduledChange && scheduledChange.plan !== FREE_PLAN ? scheduledChange : null;
  let text: string;
  if (lapsed) {
    text = `The ${subscription.name} plan is not paid up (${statusLabel(subscription.status).toLowerCase()}): the Free plan's limits apply until it is. Nothing is deleted.`;
  } else if (downgrade) {
    text = `Moves to ${downgrade.name} on ${formatBillingDate(downgrade.at)}. ${subscription.name} and its limits stay until then; to keep it, choose ${subscription.name} again under Change Plan.`;
  } else {
    return null;
  }
  return (
    <div
      role="note"
      data-testid={lapsed ? 'plan-lapsed' : 'scheduled-change'}
      className={cn(
        'flex items-start gap-2 rounded-lg border px-3 py-2.5 text-sm',
        lapsed
          ? 'border-orange-300/60 bg-orange-50 text-orange-800 dark:border-orange-900 dark:bg-orange-950/60 dark:text-orange-200'
          : 'border-primary/25 bg-primary-soft text-primary-soft-foreground',
      )}
    >
      <CircleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
      <p>{text}</p>
    </div>
  );
}
