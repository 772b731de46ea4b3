import { CreditCard } from 'lucide-react';
import { Link } from 'react-router';
import { formatCents } from '@/lib/format';
import type { SelectedPlan } from '../selected-plan';

/** Shown when sign-up continues to billing for a paid plan (docs/product.md, Public pages). */
export function SelectedPlanBanner({ selection }: { selection: SelectedPlan }) {
  const { plan, billing } = selection;
  const period = plan.interval === 'year' ? 'year' : 'month';
  return (
    <section
      aria-label="Selected Plan"
      className="flex items-start gap-3 rounded-lg border border-primary/25 bg-primary-soft px-4 py-3 text-primary-soft-foreground"
    >
      <CreditCard className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1 text-sm">
        <div className="flex flex-wrap items-baseline justify-between gap-x-3">
          <p className="font-semibold">Selected Plan</p>
          <Link to="/pricing" className="text-xs font-medium underline-offset-4 hover:underline">
            Change
          </Link>
        </div>
        <p className="mt-0.5">
          {plan.name} · {formatCents(plan.price)}/{period}
          {billing === 'annual' ? ' (billed annually)' : ''}
        </p>
        <p className="mt-1 text-xs opacity-80">You'll be taken to billing after signup</p>
      </div>
    </section>
  );
}
