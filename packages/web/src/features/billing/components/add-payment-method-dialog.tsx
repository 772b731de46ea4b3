import { PAYMENTS_NOT_CONFIGURED, type BillingProvider, type SetupIntent } from '@engram/shared';
import { useQueryClient } from '@tanstack/react-query';
import { CircleSlash } from 'lucide-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { toast } from 'sonner';
import { Dialog, DialogActions, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { createSetupIntent } from '../api/create-setup-intent';
import { billingKeys } from '@/lib/api/keys';
import { serverMessage } from '../billing-rules';

// Stripe's own code loads only when a card is actually entered with a configured key.
const StripeCardForm = lazy(() => import('./stripe-card-form'));

interface AddPaymentMethodDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  provider: BillingProvider | undefined;
}

/** The Add Payment Method dialog: the provider's card form, or why there is none. */
export function AddPaymentMethodDialog({
  open,
  onOpenChange,
  provider,
}: AddPaymentMethodDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeading
          title="Add Payment Method"
          description="Add a card for your subscription's payments."
        />
        {open ? (
          provider === 'none' ? (
            <NotConfigured />
          ) : (
            <CardSetup onDone={() => onOpenChange(false)} />
          )
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

function NotConfigured() {
  return (
    <>
      <div
        role="status"
        className="flex items-start gap-3 rounded-lg border border-border bg-surface px-4 py-3 text-sm"
      >
        <CircleSlash className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
        <div>
          <p className="font-medium">{PAYMENTS_NOT_CONFIGURED}</p>
          <p className="mt-1 text-muted-foreground">
            No card is needed here: plan changes apply at once without payment. To take payments,
            the server's operator configures Stripe.
          </p>
        </div>
      </div>
      <DialogActions closeLabel="Close" />
    </>
  );
}

type Setup =
  | { state: 'loading' }
  | { state: 'ready'; intent: SetupIntent }
  | { state: 'unavailable' }
  | { state: 'failed'; message: string };

function CardSetup({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [setup, setSetup] = useState<Setup>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    createSetupIntent().then(
      (intent) => current && setSetup({ state: 'ready', intent }),
      (error: unknown) => {
        if (!current) return;
        const message = serverMessage(error, 'Failed to add payment method');
        setSetup(
          message === PAYMENTS_NOT_CONFIGURED
            ? { state: 'unavailable' }
            : { state: 'failed', message },
        );
      },
    );
    return () => {
      current = false;
    };
  }, [attempt]);

  if (setup.state === 'unavailable') return <NotConfigured />;
  if (setup.state === 'failed') {
    return (
      <LoadErrorAlert
        onRetry={() => {
          setSetup({ state: 'loading' });
          setAttempt((n) => n + 1);
        }}
      >
        {setup.message}
      </LoadErrorAlert>
    );
  }
  const loading = (
    <p className="flex items-center gap-2 py-4 text-sm text-muted-foreground" role="status">
      <Spinner />
      Preparing a secure card form...
    </p>
  );
  if (setup.state === 'loading') return loading;
  return (
    <Suspense fallback={loading}>
      <StripeCardForm
        publishableKey={setup.intent.publishableKey}
        clientSecret={setup.intent.clientSecret}
        onAdded={() => {
          toast.success('Payment method added successfully');
          void queryClient.invalidateQueries({ queryKey: billingKeys.paymentMethods });
          onDone();
        }}
        onFailed={(message) => toast.error(message ?? 'Failed to add payment method')}
      />
    </Suspense>
  );
}
