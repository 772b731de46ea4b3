import type { PaymentMethod } from '@engram/shared';
import { CreditCard, Plus, Trash2 } from 'lucide-react';
import { toast } from 'sonner';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { usePaymentMethods } from '../api/list-payment-methods';
import { useSetDefaultPaymentMethod } from '../api/set-default-payment-method';
import { brandLabel, formatExpiry } from '../billing-rules';

interface PaymentMethodsCardProps {
  onAdd: () => void;
  onRemove: (method: PaymentMethod) => void;
  /** Not an owner: the cards are shown, their buttons held back. */
  readOnly?: boolean;
}

/** Cards on file with the default marked; set another as default, remove one, add one. */
export function PaymentMethodsCard({ onAdd, onRemove, readOnly = false }: PaymentMethodsCardProps) {
  const methods = usePaymentMethods();
  const setDefault = useSetDefaultPaymentMethod();

  function makeDefault(method: PaymentMethod) {
    setDefault.mutate(method.id, {
      onSuccess: () => toast.success('Default payment method updated'),
      onError: () => toast.error('Failed to update default payment method'),
    });
  }

  return (
    <Card role="region" aria-label="Payment methods">
      <CardHeader className="gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="grid gap-1">
          <CardTitle>Payment Methods</CardTitle>
          <CardDescription>Cards used for your subscription</CardDescription>
        </div>
        <Button variant="outline" size="sm" className="w-fit" onClick={onAdd} disabled={readOnly}>
          <Plus aria-hidden />
          Add Payment Method
        </Button>
      </CardHeader>
      <CardContent>
        {methods.isError ? (
          <LoadErrorAlert onRetry={() => void methods.refetch()}>
            Failed to load payment methods
          </LoadErrorAlert>
        ) : methods.isPending ? (
          <p className="flex items-center gap-2 py-6 text-sm text-muted-foreground" role="status">
            <Spinner />
            Loading payment methods...
          </p>
        ) : methods.data.length === 0 ? (
          <div className="flex flex-col items-center rounded-lg border border-dashed border-border px-4 py-8 text-center">
            <CreditCard className="size-5 text-muted-foreground" aria-hidden />
            <p className="mt-2 text-sm font-medium">No payment methods on file</p>
          </div>
        ) : (
          <ul className="grid gap-2" aria-label="Cards on file">
            {methods.data.map((method) => {
              const name = `${brandLabel(method.brand)} ending in ${method.last4}`;
              const busy = setDefault.isPending && setDefault.variables === method.id;
              return (
                <li
                  key={method.id}
                  aria-label={name}
                  className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-lg border border-border px-3 py-2.5"
                >
                  <div className="flex size-9 shrink-0 items-center justify-center rounded-md bg-muted">
                    <CreditCard className="size-4 text-muted-foreground" aria-hidden />
                  </div>
                  <div className="min-w-0 flex-1">
                    <p className="flex flex-wrap items-center gap-2 text-sm font-medium">
                      <span>{brandLabel(method.brand)}</span>
                      <span className="font-mono tabular-nums tracking-wide">
                        •••• {method.last4}
                      </span>
                      {method.isDefault ? <Badge variant="accent">Default</Badge> : null}
                    </p>
                    <p className="text-xs text-muted-foreground tabular-nums">
                      Expires {formatExpiry(method.expMonth, method.expYear)}
                    </p>
                  </div>
                  <div className="flex items-center gap-1">
                    {method.isDefault ? null : (
                      <Button
                        variant="ghost"
                        size="sm"
                        disabled={readOnly || setDefault.isPending}
                        onClick={() => makeDefault(method)}
                      >
                        {busy ? <Spinner /> : null}
                        Set as Default
                      </Button>
                    )}
                    <Button
                      variant="ghost"
                      size="icon"
                      aria-label={`Remove ${name}`}
                      disabled={readOnly}
                      onClick={() => onRemove(method)}
                    >
                      <Trash2 aria-hidden />
                    </Button>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
