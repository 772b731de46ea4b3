import type { BillingPlan, Subscription } from '@engram/shared';
import { Check } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { PendingButton } from '@/components/pending-button';
import { Badge } from '@/components/ui/badge';
import { Dialog, DialogActions, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { SegmentedControl } from '@/components/ui/segmented-control';
import { cn } from '@/lib/cn';
import { formatCents } from '@/lib/format';
import type { BillingCycle } from '@/lib/plans';
import { useChangePlan } from '../api/subscription-changes';
import { useStartCheckout } from '@/lib/api/checkout';
import { browser } from '../browser';
import {
  checkoutReturnUrls,
  chosenPlan,
  confirmLabel,
  formatLimit,
  initialPlanChoice,
  planChangedDescription,
  planChangeError,
  planChangeRoute,
  planChoiceHint,
  planDialogDescription,
  plansForCycle,
} from '../billing-rules';

interface ChangePlanDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  subscription: Subscription;
  plans: BillingPlan[];
}

/** A monthly/annual toggle ('Save 17%') and a radio card per plan (docs/product.md, States). */
export function ChangePlanDialog({
  open,
  onOpenChange,
  subscription,
  plans,
}: ChangePlanDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-2xl gap-5">
        {/* Mounted only while open, so each opening starts on the current plan. */}
        {open ? (
          <ChangePlanForm
            subscription={subscription}
            plans={plans}
            onDone={() => onOpenChange(false)}
          />
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

function ChangePlanForm({
  subscription,
  plans,
  onDone,
}: {
  subscription: Subscription;
  plans: BillingPlan[];
  onDone: () => void;
}) {
  const initial = initialPlanChoice(subscription);
  const [cycle, setCycle] = useState<BillingCycle>(initial.cycle);
  const [planId, setPlanId] = useState<string | null>(initial.planId);
  const [redirecting, setRedirecting] = useState(false);
  const changePlan = useChangePlan();
  const checkout = useStartCheckout();
  const shown = plansForCycle(plans, cycle);
  const chosen = chosenPlan(plans, cycle, planId);
  const hint = planChoiceHint(subscription, chosen);
  const pending = changePlan.isPending || checkout.isPending || redirecting;

  function confirm() {
    if (!chosen || hint?.blocked) return;
    const route = planChangeRoute(subscription, chosen);
    if (route === 'checkout') {
      const urls = checkoutReturnUrls(window.location.origin, chosen.id);
      checkout.mutate(
        { priceId: chosen.priceId!, ...urls },
        {
          onSuccess: (url) => {
            setRedirecting(true);
            browser.assign(url);
          },
          onError: (error) => toast.error(planChangeError(error)),
        },
      );
      return;
    }
    changePlan.mutate(
      { planId: chosen.id, priceId: chosen.priceId },
      {
        onSuccess: (changed) => {
          toast.success(
            route === 'downgrade-to-free' ? 'Plan changed to Free' : 'Plan changed successfully',
            { description: planChangedDescription(changed) },
          );
          onDone();
        },
        onError: (error) => toast.error(planChangeError(error)),
      },
    );
  }

  return (
    <>
      <DialogHeading title="Change Plan" description={planDialogDescription(subscription)} />

      <SegmentedControl
        aria-label="Billing period"
        value={cycle}
        onValueChange={setCycle}
        className="w-fit"
        options={[
          { value: 'monthly', label: 'Monthly' },
          {
            value: 'annual',
            label: (
              <>
                Annual
                <Badge variant="success" className="px-1.5 py-0">
                  Save 17%
                </Badge>
              </>
            ),
          },
        ]}
      />

      <div
        role="radiogroup"
        aria-label="Plans"
        className="grid max-h-[55dvh] gap-2 overflow-y-auto sm:grid-cols-2"
      >
        {shown.map((plan) => (
          <PlanOption
            key={plan.id}
            plan={plan}
            checked={plan.id === planId}
            current={plan.id === subscription.plan}
            scheduled={plan.id === subscription.scheduledChange?.plan}
            onSelect={() => setPlanId(plan.id)}
          />
        ))}
      </div>

      {hint ? (
        <p
          id="plan-choice-hint"
          data-testid="plan-choice-hint"
          className="-mt-2 text-sm text-muted-foreground"
          aria-live="polite"
        >
          {hint.text}
        </p>
      ) : null}

      <DialogActions closeDisabled={pending}>
        <PendingButton
          variant={chosen?.priceId === null && !hint?.blocked ? 'destructive' : 'primary'}
          pending={pending}
          disabled={!chosen || hint?.blocked}
          aria-describedby={hint ? 'plan-choice-hint' : undefined}
          onClick={confirm}
        >
          {confirmLabel(chosen)}
        </PendingButton>
      </DialogActions>
    </>
  );
}

const compactNumber = new Intl.NumberFormat('en-US', { notation: 'compact' });
/** 100000 → '100K', -1 → 'Unlimited'. */
const compact = (value: number) =>
  value === -1 ? formatLimit(value) : compactNumber.format(value);

function PlanOption({
  plan,
  checked,
  current,
  scheduled,
  onSelect,
}: {
  plan: BillingPlan;
  checked: boolean;
  current: boolean;
  /** The plan a scheduled change moves to at the period end. */
  scheduled: boolean;
  onSelect: () => void;
}) {
  const annual = plan.interval === 'year';
  const { features } = plan;
  return (
    <label
      className={cn(
        'relative flex cursor-pointer flex-col gap-2 rounded-lg border p-4 transition-colors has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring',
        checked ? 'border-primary bg-primary-soft/60' : 'border-border hover:bg-muted/60',
      )}
    >
      <input
        type="radio"
        name="plan"
        value={plan.id}
        checked={checked}
        onChange={onSelect}
        // Invisible over the whole card: a click anywhere on it chooses the plan.
        className="absolute inset-0 z-10 size-full cursor-pointer appearance-none rounded-lg opacity-0"
        aria-label={plan.name}
      />
      <div className="flex items-start justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-semibold">{plan.name}</span>
          {current ? <Badge variant="outline">Current</Badge> : null}
          {scheduled ? <Badge variant="outline">Scheduled</Badge> : null}
        </div>
        <span
          className={cn(
            'flex size-5 shrink-0 items-center justify-center rounded-full border',
            checked ? 'border-primary bg-primary text-primary-foreground' : 'border-border',
          )}
          aria-hidden
        >
          {checked ? <Check className="size-3" /> : null}
        </span>
      </div>
      <p className="tabular-nums">
        <span className="text-lg font-semibold">
          {plan.price === 0 ? '$0' : formatCents(plan.price)}
        </span>
        <span className="text-sm text-muted-foreground">
          {plan.interval === null ? ' forever' : annual ? ' / year' : ' / month'}
        </span>
        {annual ? (
          <span className="block text-xs text-muted-foreground">
            {formatCents(plan.price / 12)}
            /month billed annually
          </span>
        ) : null}
      </p>
      <p className="text-xs text-muted-foreground">
        {compact(features.maxEntities)} entities · {compact(features.maxQueries)} operations/month ·{' '}
        {compact(features.maxApiKeys)} API {features.maxApiKeys === 1 ? 'key' : 'keys'}
      </p>
    </label>
  );
}
