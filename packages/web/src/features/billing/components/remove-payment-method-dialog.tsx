import type { PaymentMethod } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDialog } from '@/components/confirm-dialog';
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
    <ConfirmDialog
      open={method !== null}
      onClose={onClose}
      title="Remove Payment Method"
      description={
        method ? (
          <>
            Are you sure you want to remove the {brandLabel(method.brand)} card ending in{' '}
            {method.last4} (expires {formatExpiry(method.expMonth, method.expYear)})?
          </>
        ) : null
      }
      cancelLabel="Keep Card"
      action="Remove"
      destructive
      pending={remove.isPending}
      onConfirm={() => {
        if (!method) return;
        remove.mutate(method.id, {
          onSuccess: () => {
            toast.success('Payment method removed');
            onClose();
          },
          onError: () => toast.error('Failed to remove payment method'),
        });
      }}
    >
      {method?.isDefault ? (
        <p className="text-sm">
          It is your default card: add or choose another before your next payment is due.
        </p>
      ) : null}
    </ConfirmDialog>
  );
}
