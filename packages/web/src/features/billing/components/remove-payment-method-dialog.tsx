import type { PaymentMethod } from '@engram/shared';
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
import { useRemovePaymentMethod } from '../api/remove-payment-method';
import { brandLabel, formatExpiry } from '../billing-rules';

interface RemovePaymentMethodDialogProps {
  /** The card to remove; open while one is set. */
  method: PaymentMethod | null;
  onClose: () => void;
}

/** Removing a card asks first (docs/product.md, States). */
export function RemovePaymentMethodDialog({ method, onClose }: RemovePaymentMethodDialogProps) {
  const remove = useRemovePaymentMethod();
  return (
    <Dialog open={method !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        {method ? (
          <>
            <DialogHeader>
              <DialogTitle>Remove Payment Method</DialogTitle>
              <DialogDescription>
                Are you sure you want to remove the {brandLabel(method.brand)} card ending in{' '}
                {method.last4} (expires {formatExpiry(method.expMonth, method.expYear)})?
              </DialogDescription>
            </DialogHeader>
            {method.isDefault ? (
              <p className="text-sm">
                It is your default card: add or choose another before your next payment is due.
              </p>
            ) : null}
            <DialogFooter>
              <DialogClose asChild>
                <Button variant="outline">Keep Card</Button>
              </DialogClose>
              <Button
                variant="destructive"
                disabled={remove.isPending}
                onClick={() =>
                  remove.mutate(method.id, {
                    onSuccess: () => {
                      toast.success('Payment method removed');
                      onClose();
                    },
                    onError: () => toast.error('Failed to remove payment method'),
                  })
                }
              >
                {remove.isPending ? <Spinner /> : null}
                Remove
              </Button>
            </DialogFooter>
          </>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
