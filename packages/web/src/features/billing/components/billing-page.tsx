import { BILLING_OWNER_ONLY, type PaymentMethod } from '@engram/shared';
import { useState } from 'react';
import { toast } from 'sonner';
import { Page } from '@/components/page';
import { RoleNote } from '@/components/role-note';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { can, useAccount } from '@/lib/account';
import { useSubscription } from '../api/get-subscription';
import { usePlans } from '../api/list-plans';
import { useReactivateSubscription } from '../api/subscription-changes';
import { AddPaymentMethodDialog } from './add-payment-method-dialog';
import { BillingHistoryCard } from './billing-history-card';
import { CancelSubscriptionDialog } from './cancel-subscription-dialog';
import { ChangePlanDialog } from './change-plan-dialog';
import { CurrentPlanCard } from './current-plan-card';
import { PaymentMethodsCard } from './payment-methods-card';
import { PlanFeaturesCard } from './plan-features-card';
import { RemovePaymentMethodDialog } from './remove-payment-method-dialog';
import { UsageCards } from './usage-cards';

/**
 * Billing & Subscription (/billing; docs/product.md, The signed-in app): the current plan and its
 * limits, cards on file, this month's usage, invoices, and the dialogs that
 * change them. Only the account's owners may change billing (the server
 * answers 403 with the message of docs/product.md, Calls, shown as a toast):
 * anyone else reads it, with that message said before they try.
 */
export function BillingPage() {
  const account = useAccount();
  // Unknown until /auth/me has answered: then the buttons stay and the server decides.
  const readOnly = !can(account.role, 'changeBilling');
  const subscription = useSubscription();
  const plans = usePlans();
  const reactivate = useReactivateSubscription();
  const [changing, setChanging] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<PaymentMethod | null>(null);

  const current = subscription.data;
  const currentPlan = plans.data?.find((plan) => plan.id === current?.plan);

  function onReactivate() {
    reactivate.mutate(undefined, {
      onSuccess: () => toast.success('Subscription reactivated'),
      onError: () => toast.error('Failed to reactivate subscription'),
    });
  }

  function openChangePlan() {
    if (plans.isError) {
      toast.error('Failed to load plans');
      void plans.refetch();
      return;
    }
    setChanging(true);
  }

  return (
    <Page
      title="Billing & Subscription"
      className="grid-cols-1"
      description="Manage your plan, payment methods and invoices"
    >
      {readOnly ? (
        <RoleNote testId="billing-owner-only">
          <span className="font-medium text-foreground">{BILLING_OWNER_ONLY}</span> You can see{' '}
          {account.current?.name ?? 'this account'}&apos;s plan and usage; ask an owner to change
          them.
        </RoleNote>
      ) : null}

      {subscription.isError ? (
        <LoadErrorAlert onRetry={() => void subscription.refetch()}>
          Failed to load subscription information
        </LoadErrorAlert>
      ) : null}
      {plans.isError ? (
        <LoadErrorAlert onRetry={() => void plans.refetch()}>Failed to load plans</LoadErrorAlert>
      ) : null}

      {current ? (
        <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-5">
          <div className="grid min-w-0 grid-cols-1 gap-6 lg:col-span-3">
            <CurrentPlanCard
              subscription={current}
              plan={currentPlan}
              onChangePlan={openChangePlan}
              onCancel={() => setCancelling(true)}
              onReactivate={onReactivate}
              reactivating={reactivate.isPending}
              readOnly={readOnly}
            />
            <PaymentMethodsCard
              onAdd={() => setAdding(true)}
              onRemove={setRemoving}
              readOnly={readOnly}
            />
          </div>
          <div className="min-w-0 lg:col-span-2">
            <PlanFeaturesCard subscription={current} />
          </div>
        </div>
      ) : subscription.isPending ? (
        <Card
          role="status"
          className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
        >
          <Spinner />
          Loading subscription...
        </Card>
      ) : null}

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <UsageCards subscription={current} />
      </div>

      <BillingHistoryCard />

      {current ? (
        <>
          <ChangePlanDialog
            open={changing && plans.data !== undefined}
            onOpenChange={setChanging}
            subscription={current}
            plans={plans.data ?? []}
          />
          <CancelSubscriptionDialog
            open={cancelling}
            onOpenChange={setCancelling}
            subscription={current}
          />
        </>
      ) : null}
      <AddPaymentMethodDialog open={adding} onOpenChange={setAdding} provider={current?.provider} />
      <RemovePaymentMethodDialog method={removing} onClose={() => setRemoving(null)} />
    </Page>
  );
}
