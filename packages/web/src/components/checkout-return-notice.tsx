import { planById, subscription as subscriptionSchema, type Subscription } from '@engram/shared';
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { apiRequest } from '@/lib/api-client';

/**
 * What a return from the hosted checkout page says (docs/product.md, States: both readings
 * of the return URLs): from sign-up, /dashboard?payment=success or
 * /signup?…&payment=cancelled; from the plan dialog,
 * /dashboard?success=true&plan={id} or /billing?canceled=true&plan={id}.
 */
export interface CheckoutReturn {
  tone: 'success' | 'info';
  message: string;
  description?: string;
  /** Query keys to drop once the notice is shown (a reload must not repeat it). */
  consumed: string[];
  /**
   * A paid sign-up's return: whether a payment happened is the server's to
   * say (without a payment provider the plan is taken and nothing is paid),
   * so the subscription is read before the notice is worded (`paidSignUpReturn`).
   */
  askServer?: true;
}

export const PAYMENT_SUCCESSFUL = 'Payment successful! Your subscription is now active.';

/** The words of a paid sign-up's return, once the subscription is read (null: it could not be). */
export function paidSignUpReturn(
  subscription: Subscription | null,
): Pick<CheckoutReturn, 'tone' | 'message' | 'description'> {
  if (!subscription) {
    return {
      tone: 'info',
      message: 'Account created',
      description: 'Your plan and its status are under Billing.',
    };
  }
  if (subscription.provider === 'none') {
    return {
      tone: 'success',
      message: `You are on the ${subscription.name} plan`,
      description: 'No payment was taken: this server runs without a payment provider.',
    };
  }
  return { tone: 'success', message: PAYMENT_SUCCESSFUL };
}

export function checkoutReturnOf(pathname: string, search: URLSearchParams): CheckoutReturn | null {
  const planName = () => {
    const plan = search.get('plan');
    return plan ? planById(plan).name : undefined;
  };
  if (pathname === '/dashboard' && search.get('payment') === 'success') {
    return { tone: 'success', message: PAYMENT_SUCCESSFUL, consumed: ['payment'], askServer: true };
  }
  if (pathname === '/dashboard' && search.get('success') === 'true') {
    const name = planName();
    return {
      tone: 'success',
      message: 'Plan changed successfully',
      ...(name ? { description: `You are now on the ${name} plan.` } : {}),
      consumed: ['success', 'plan'],
    };
  }
  if (pathname === '/billing' && search.get('canceled') === 'true') {
    const name = planName();
    return {
      tone: 'info',
      message: 'Checkout cancelled',
      description: name
        ? `You were not charged and your plan has not changed to ${name}.`
        : 'You were not charged and your plan has not changed.',
      consumed: ['canceled', 'plan'],
    };
  }
  if (pathname === '/signup' && search.get('payment') === 'cancelled') {
    return {
      tone: 'info',
      message: 'Payment cancelled',
      description:
        'Your account was created on the Free plan. You can choose a paid plan from Billing at any time.',
      // The sign-up page sends a signed-in visitor on to the dashboard anyway.
      consumed: [],
    };
  }
  return null;
}

function show(id: string, notice: Pick<CheckoutReturn, 'tone' | 'message' | 'description'>) {
  const options = { id, ...(notice.description ? { description: notice.description } : {}) };
  if (notice.tone === 'success') toast.success(notice.message, options);
  else toast.info(notice.message, options);
}

/** Shows the toast of a checkout return once, then takes its query values out of the address. */
export function CheckoutReturnNotice() {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const search = new URLSearchParams(location.search);
    const notice = checkoutReturnOf(location.pathname, search);
    if (!notice) return;
    const id = `checkout-return:${location.pathname}`;
    if (notice.askServer) {
      void apiRequest('/api/billing/subscription', { schema: subscriptionSchema })
        .catch(() => null)
        .then((subscription) => show(id, paidSignUpReturn(subscription)));
    } else {
      show(id, notice);
    }
    if (notice.consumed.length === 0) return;
    for (const key of notice.consumed) search.delete(key);
    const rest = search.toString();
    void navigate(
      { pathname: location.pathname, search: rest ? `?${rest}` : '', hash: location.hash },
      { replace: true, state: location.state as unknown },
    );
  }, [location.pathname, location.search, location.hash, location.state, navigate]);
  return null;
}
