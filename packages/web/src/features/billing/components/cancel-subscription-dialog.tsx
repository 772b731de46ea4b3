import type { Subscription } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { useCancelSubscription } from '../api/subscription-changes';
import { formatBillingDate } from '../billing-rules';

interface CancelSubscriptionDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  subscription: Subscription;
}

/** Cancelling asks first, and ends the plan at the period end, not at once (docs/product.md, States). */
export function CancelSubscriptionDialog({
  open,
  onOpenChange,
  subscription,
}: CancelSubscriptionDialogProps) {
  const cancel = useCancelSubscription();
  const end = subscription.currentPeriodEnd;
  return (
    <ConfirmDialog
      open={open}
      onClose={() => onOpenChange(false)}
      title="Cancel Subscription"
      description={`Are you sure you want to cancel your ${subscription.name} subscription?`}
      cancelLabel="Keep Subscription"
      action="Cancel Subscription"
      destructive
      pending={cancel.isPending}
      onConfirm={() =>
        cancel.mutate(undefined, {
          onSuccess: () => {
            toast.success('Subscription will be cancelled at the end of the billing period');
            onOpenChange(false);
          },
          onError: () => toast.error('Failed to cancel subscription'),
        })
      }
    >
      <p className="text-sm">
        {end
          ? `It stays active until ${formatBillingDate(end)}. After that your account moves to the Free plan's limits.`
          : "Your account moves to the Free plan's limits at the end of the billing period."}{' '}
        Your entities, relations and observations are kept, and you can reactivate any time before
        then.
      </p>
    </ConfirmDialog>
  );
}
