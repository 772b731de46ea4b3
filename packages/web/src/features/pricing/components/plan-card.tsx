import { Check, X } from 'lucide-react';
import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { formatCents } from '@/lib/format';
import { monthlyEquivalentCents, type BillingCycle } from '@/lib/plans';
import { signupLink, type PricingTier } from '../pricing-tiers';

function billingNote(tier: PricingTier): string {
  if (tier.plan.priceId === null) return 'Free forever';
  if (tier.plan.interval === 'year') return `Billed ${formatCents(tier.plan.price)} annually`;
  return 'Billed monthly';
}

/** How long the plan keeps every change (history, as-of reads, revert: docs/history.md). */
function historyKept(days: number): string {
  return `History kept ${days === 365 ? '1 year' : `${days} days`}`;
}

export function PlanCard({ tier, cycle }: { tier: PricingTier; cycle: BillingCycle }) {
  const { plan } = tier;
  const titleId = `plan-${tier.tierId}-title`;
  const free = plan.priceId === null;
  return (
    <article
      aria-labelledby={titleId}
      className={cn(
        'relative flex flex-col rounded-lg border bg-card p-6 shadow-xs',
        plan.popular ? 'border-primary ring-1 ring-primary' : 'border-border',
      )}
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id={titleId} className="text-base font-semibold">
          {plan.name}
        </h2>
        {plan.popular ? <Badge variant="accent">Most Popular</Badge> : null}
      </div>
      <p className="mt-1 min-h-10 text-sm text-muted-foreground">{tier.tagline}</p>
      <p className="mt-5 flex items-baseline gap-1">
        <span className="text-4xl font-semibold tracking-tight tabular-nums">
          {formatCents(monthlyEquivalentCents(plan))}
        </span>
        <span className="text-sm text-muted-foreground">/month</span>
      </p>
      <p className="mt-1 text-xs text-muted-foreground">{billingNote(tier)}</p>
      <Button asChild className="mt-6 w-full" variant={plan.popular ? 'primary' : 'outline'}>
        <Link to={signupLink(tier, cycle)}>{free ? 'Get Started' : 'Start Free Trial'}</Link>
      </Button>
      <ul className="mt-6 grid gap-2.5 border-t border-border pt-6 text-sm">
        {[...plan.features.features, historyKept(plan.features.changeLogRetentionDays)].map(
          (feature) => (
            <li key={feature} className="flex gap-2">
              <Check className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
              <span>{feature}</span>
            </li>
          ),
        )}
        {tier.excluded.map((feature) => (
          <li key={feature} className="flex gap-2 text-muted-foreground">
            <X className="mt-0.5 size-4 shrink-0" aria-hidden />
            <span>
              <span className="sr-only">Not included: </span>
              {feature}
            </span>
          </li>
        ))}
      </ul>
    </article>
  );
}
