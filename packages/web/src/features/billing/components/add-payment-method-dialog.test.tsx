import type { Subscription } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

/**
 * The card form with a provider configured. Stripe.js itself cannot load
 * here (no network), so its loader answers with a stand-in that has the
 * shape Stripe Elements needs and records the card confirmation.
 */
const element = { mount: vi.fn(), on: vi.fn(), off: vi.fn(), destroy: vi.fn(), update: vi.fn() };
const confirmCardSetup = vi.fn();
const fakeStripe = {
  elements: () => ({ create: () => element, getElement: () => element, update: vi.fn() }),
  createToken: vi.fn(),
  createPaymentMethod: vi.fn(),
  confirmCardPayment: vi.fn(),
  confirmCardSetup,
};
const loadStripe = vi.fn(async (_key: string) => fakeStripe);
vi.mock('@stripe/stripe-js/pure', () => ({ loadStripe: (key: string) => loadStripe(key) }));

const SUBSCRIPTION: Subscription = {
  plan: 'pro',
  name: 'Pro',
  status: 'active',
  cancelAtPeriodEnd: false,
  currentPeriodEnd: 1_804_032_000,
  features: { maxEntities: 100_000, maxQueries: 1, maxApiKeys: 1, maxWebhooks: 1, features: [] },
  limitsPlan: { id: 'pro', name: 'Pro' },
  scheduledChange: null,
  provider: 'stripe',
  planChanges: 'provider',
};

function server() {
  localStorage.setItem('auth_token', 'valid-token');
  const ok = (body: unknown) => ({ status: 200, body });
  return fakeServer({
    'GET /auth/me': () => ok(TEST_USER),
    'GET /api/billing/subscription': () => ok(SUBSCRIPTION),
    'GET /api/billing/plans': () => ok({ plans: [] }),
    'GET /api/billing/payment-methods': () => ok({ paymentMethods: [] }),
    'GET /api/billing/invoices': () => ok({ invoices: [] }),
    'GET /api/analytics/billing/monthly-summary': () =>
      ok({ totalRequests: 0, breakdown: {}, details: [] }),
    'GET /api/analytics/stats/real-time': () =>
      ok({ queries: 0, creates: 0, updates: 0, deletes: 0, total: 0 }),
    'POST /api/billing/setup-intent': () =>
      ok({ clientSecret: 'seti_1_secret_2', publishableKey: 'pk_test_1' }),
  });
}

async function openCardForm() {
  const user = userEvent.setup({ delay: null });
  renderApp('/billing');
  await user.click(
    await screen.findByRole('button', { name: 'Add Payment Method' }, { timeout: 5000 }),
  );
  const dialog = await screen.findByRole('dialog', { name: 'Add Payment Method' });
  const add = await within(dialog).findByRole('button', { name: 'Add Card' }, { timeout: 5000 });
  return { user, dialog, add };
}

describe('Add Payment Method with a provider', { timeout: 20_000 }, () => {
  beforeEach(() => {
    loadStripe.mockClear();
    confirmCardSetup.mockReset();
  });

  it('loads the card form with the server’s key and confirms the setup with the card', async () => {
    const { requests } = server();
    const success = vi.spyOn(toast, 'success');
    confirmCardSetup.mockResolvedValue({ setupIntent: { id: 'seti_1', status: 'succeeded' } });
    const { user, add } = await openCardForm();
    expect(loadStripe).toHaveBeenCalledWith('pk_test_1');
    await waitFor(() => expect(element.mount).toHaveBeenCalled());
    await user.click(add);
    await waitFor(() =>
      expect(confirmCardSetup).toHaveBeenCalledWith('seti_1_secret_2', {
        payment_method: { card: element },
      }),
    );
    await waitFor(() => expect(success).toHaveBeenCalledWith('Payment method added successfully'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // The list is read again to show the new card.
    expect(
      requests.filter((r) => r.path === '/api/billing/payment-methods').length,
    ).toBeGreaterThan(1);
  });

  it('shows the provider’s message when the card is refused', async () => {
    server();
    const error = vi.spyOn(toast, 'error');
    confirmCardSetup.mockResolvedValue({ error: { message: 'Your card was declined.' } });
    const { user, dialog, add } = await openCardForm();
    await user.click(add);
    await waitFor(() => expect(error).toHaveBeenCalledWith('Your card was declined.'));
    expect(within(dialog).getByText('Your card was declined.')).toBeInTheDocument();
  });

  it('falls back to a generic message', async () => {
    server();
    const error = vi.spyOn(toast, 'error');
    confirmCardSetup.mockResolvedValue({ error: {} });
    const { user, add } = await openCardForm();
    await user.click(add);
    await waitFor(() => expect(error).toHaveBeenCalledWith('Failed to add payment method'));
  });
});
