import { planById } from '@engram/shared';
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { toast } from 'sonner';

/**
 * What a return from the hosted checkout page says (spec §7, both readings
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
}

export function checkoutReturnOf(pathname: string, search: URLSearchParams): CheckoutReturn | null {
  const planName = () => {
    const plan = search.get('plan');
    return plan ? planById(plan).name : undefined;
  };
  if (pathname === '/dashboard' && search.get('payment') === 'success') {
    return {
      tone: 'success',
      message: 'Payment successful! Your subscription is now active.',
      consumed: ['payment'],
    };
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

/** Shows the toast of a checkout return once, then takes its query values out of the address. */
export function CheckoutReturnNotice() {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const search = new URLSearchParams(location.search);
    const notice = checkoutReturnOf(location.pathname, search);
    if (!notice) return;
    const options = {
      id: `checkout-return:${location.pathname}`,
      ...(notice.description ? { description: notice.description } : {}),
    };
    if (notice.tone === 'success') toast.success(notice.message, options);
    else toast.info(notice.message, options);
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
