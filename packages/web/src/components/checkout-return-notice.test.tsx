import { waitFor } from '@testing-library/react';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { checkoutReturnOf, paidSignUpReturn, PAYMENT_SUCCESSFUL } from './checkout-return-notice';

const of = (path: string) => {
  const url = new URL(path, 'http://localhost');
  return checkoutReturnOf(url.pathname, url.searchParams);
};

describe('returns from checkout (both readings)', () => {
  it('reads each return address', () => {
    expect(of('/dashboard?payment=success')).toMatchObject({
      tone: 'success',
      message: 'Payment successful! Your subscription is now active.',
    });
    expect(of('/dashboard?success=true&plan=pro-annual')).toMatchObject({
      tone: 'success',
      message: 'Plan changed successfully',
      description: 'You are now on the Pro plan.',
    });
    expect(of('/billing?canceled=true&plan=team')).toMatchObject({
      tone: 'info',
      message: 'Checkout cancelled',
      description: 'You were not charged and your plan has not changed to Power User.',
    });
    expect(of('/signup?plan=pro&billing=annual&payment=cancelled')).toMatchObject({
      tone: 'info',
      message: 'Payment cancelled',
    });
    expect(of('/dashboard')).toBeNull();
    expect(of('/billing?success=true')).toBeNull();
  });

  it('toasts once and takes the values out of the address', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({ 'GET /auth/me': () => ({ status: 200, body: TEST_USER }) });
    const success = vi.spyOn(toast, 'success');
    const { router } = renderApp('/dashboard?success=true&plan=starter&tab=x');
    await waitFor(() =>
      expect(success).toHaveBeenCalledWith('Plan changed successfully', expect.anything()),
    );
    await waitFor(() => expect(router.state.location.search).toBe('?tab=x'));
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(success).toHaveBeenCalledTimes(1);
  });

  it('toasts a cancelled sign-up payment before the signed-in visitor moves on', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({ 'GET /auth/me': () => ({ status: 200, body: TEST_USER }) });
    const info = vi.spyOn(toast, 'info');
    const { router } = renderApp('/signup?plan=pro&billing=annual&payment=cancelled');
    await waitFor(() => expect(info).toHaveBeenCalledWith('Payment cancelled', expect.anything()));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });
});

describe('a paid sign-up’s return says whether a payment happened', () => {
  const base = {
    plan: 'starter',
    name: 'Starter',
    status: 'active',
    cancelAtPeriodEnd: false,
    currentPeriodEnd: 1_804_032_000,
    features: { maxEntities: 1, maxQueries: 1, maxApiKeys: 1, maxWebhooks: 0, features: [] },
    limitsPlan: { id: 'starter', name: 'Starter' },
    scheduledChange: null,
  };

  it('words it from the subscription the server reports', () => {
    expect(
      paidSignUpReturn({ ...base, provider: 'stripe', planChanges: 'provider' }),
    ).toMatchObject({ tone: 'success', message: PAYMENT_SUCCESSFUL });
    expect(paidSignUpReturn({ ...base, provider: 'none', planChanges: 'self' })).toEqual({
      tone: 'success',
      message: 'You are on the Starter plan',
      description: 'No payment was taken: this server runs without a payment provider.',
    });
    expect(paidSignUpReturn(null)).toMatchObject({ tone: 'info', message: 'Account created' });
  });

  it('without a payment provider, never says a payment was successful', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/billing/subscription': () => ({
        status: 200,
        body: { ...base, provider: 'none', planChanges: 'self' },
      }),
    });
    const success = vi.spyOn(toast, 'success');
    const { router } = renderApp('/dashboard?payment=success');
    await waitFor(() =>
      expect(success).toHaveBeenCalledWith('You are on the Starter plan', expect.anything()),
    );
    expect(success).not.toHaveBeenCalledWith(PAYMENT_SUCCESSFUL, expect.anything());
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });
});
