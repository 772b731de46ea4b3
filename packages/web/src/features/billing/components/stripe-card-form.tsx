import { CardElement, Elements, useElements, useStripe } from '@stripe/react-stripe-js';
import type { Stripe } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';
import { Lock } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { FormDialogFooter } from '@/components/form-dialog-footer';

/**
 * The card entry form: Stripe Elements confirming the server's setup intent
 * in the browser (docs/product.md, Calls). This module — and Stripe.js with it — is loaded
 * only when the server has a publishable key, so nothing reaches Stripe
 * otherwise.
 */
const loaded = new Map<string, Promise<Stripe | null>>();
function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let stripe = loaded.get(publishableKey);
  if (!stripe) {
    stripe = loadStripe(publishableKey);
    loaded.set(publishableKey, stripe);
  }
  return stripe;
}

export interface StripeCardFormProps {
  publishableKey: string;
  clientSecret: string;
  onAdded: () => void;
  /** The provider's message, or undefined for the generic one. */
  onFailed: (message: string | undefined) => void;
}

export default function StripeCardForm(props: StripeCardFormProps) {
  return (
    <Elements stripe={stripeFor(props.publishableKey)}>
      <CardForm {...props} />
    </Elements>
  );
}

function CardForm({ clientSecret, onAdded, onFailed }: StripeCardFormProps) {
  const stripe = useStripe();
  const elements = useElements();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const card = elements?.getElement(CardElement);
    if (!stripe || !card) return;
    setSaving(true);
    setError(null);
    try {
      const result = await stripe.confirmCardSetup(clientSecret, { payment_method: { card } });
      if (result.error) {
        setError(result.error.message ?? 'Failed to add payment method');
        onFailed(result.error.message);
      } else {
        onAdded();
      }
    } catch {
      setError('Failed to add payment method');
      onFailed(undefined);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={(event) => void submit(event)} className="grid gap-4">
      <div className="rounded-lg border border-input bg-background px-3 py-3">
        <CardElement options={{ hidePostalCode: false, style: { base: { fontSize: '15px' } } }} />
      </div>
      {error ? <Alert variant="error">{error}</Alert> : null}
      <p className="flex items-center gap-1.5 text-xs text-muted-foreground">
        <Lock className="size-3.5" aria-hidden />
        Card details go straight to Stripe; this server never sees them.
      </p>
      <FormDialogFooter submitLabel="Add Card" pending={saving} disabled={!stripe} />
    </form>
  );
}
