import type { Subscription } from '@engram/shared';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { useCancelSubscription } from '../api/cancel-subscription';
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
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Cancel Subscription</DialogTitle>
          <DialogDescription>
            Are you sure you want to cancel your {subscription.name} subscription?
          </DialogDescription>
        </DialogHeader>
        <p className="text-sm">
          {end
            ? `It stays active until ${formatBillingDate(end)}. After that your account moves to the Free plan's limits.`
            : "Your account moves to the Free plan's limits at the end of the billing period."}{' '}
          Your entities, relations and observations are kept, and you can reactivate any time before
          then.
        </p>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Keep Subscription</Button>
          </DialogClose>
          <Button
            variant="destructive"
            disabled={cancel.isPending}
            onClick={() =>
              cancel.mutate(undefined, {
                onSuccess: () => {
                  toast.success('Subscription will be cancelled at the end of the billing period');
                  onOpenChange(false);
                },
                onError: () => toast.error('Failed to cancel subscription'),
              })
            }
          >
            {cancel.isPending ? <Spinner /> : null}
            Cancel Subscription
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
