import type {
  BillingPlan,
  Invoice,
  MonthlySummary,
  PaymentMethod,
  Subscription,
} from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { browser } from '../browser';

const features = (maxEntities: number, extra: Partial<Subscription['features']> = {}) => ({
  maxEntities,
  maxQueries: 15_000,
  maxApiKeys: 1,
  maxWebhooks: 0,
  features: ['1,000 entities', 'Community support'],
  ...extra,
});

function plan(
  id: string,
  name: string,
  price: number,
  interval: BillingPlan['interval'],
): BillingPlan {
  return {
    id,
    name,
    price,
    interval,
    priceId:
      price === 0
        ? null
        : `price_${id.replace('-annual', '')}_${interval === 'year' ? 'annual' : 'monthly'}`,
    popular: id === 'starter',
    features: features(price === 0 ? 1_000 : 10_000),
  };
}

const PLANS: BillingPlan[] = [
  plan('free', 'Free', 0, null),
  plan('starter', 'Starter', 1000, 'month'),
  plan('pro', 'Pro', 2000, 'month'),
  plan('team', 'Power User', 6000, 'month'),
  plan('starter-annual', 'Starter', 10000, 'year'),
  plan('pro-annual', 'Pro', 20000, 'year'),
  plan('team-annual', 'Power User', 60000, 'year'),
];

// 2027-03-03T00:00:00Z
const PERIOD_END = 1_804_032_000;

function sub(overrides: Partial<Subscription> = {}): Subscription {
  return {
    plan: 'free',
    name: 'Free',
    status: 'active',
    cancelAtPeriodEnd: false,
    currentPeriodEnd: null,
    features: features(1_000),
    limitsPlan: { id: 'free', name: 'Free' },
    scheduledChange: null,
    provider: 'none',
    planChanges: 'self',
    ...overrides,
  };
}

const PRO = sub({
  plan: 'pro',
  name: 'Pro',
  currentPeriodEnd: PERIOD_END,
  features: features(100_000, { maxQueries: 1_000_000, maxApiKeys: 10, maxWebhooks: 20 }),
  limitsPlan: { id: 'pro', name: 'Pro' },
});

const USAGE: MonthlySummary = {
  totalRequests: 40,
  breakdown: { query: 20, create: 10, update: 6, delete: 4 },
  details: Array.from({ length: 7 }, (_, index) => ({
    operation_type: 'query' as const,
    resource_type: `resource_${index}`,
    avg_response_time: 1.25 + index,
    request_count: 10 - index,
  })),
};

type Reply = { status: number; body?: unknown } | 'network-error';
type Handlers = Record<string, (request: FakeRequest) => Reply>;

interface ServerState {
  subscription?: Subscription;
  methods?: PaymentMethod[];
  invoices?: Invoice[];
}

/** A signed-in session against a fake billing API that keeps its state. */
function billingServer(state: ServerState = {}, overrides: Handlers = {}) {
  localStorage.setItem('auth_token', 'valid-token');
  let current = state.subscription ?? sub();
  let methods = state.methods ?? [];
  const ok = (body: unknown): Reply => ({ status: 200, body });
  return fakeServer({
    'GET /auth/me': () => ok(TEST_USER),
    'GET /api/billing/subscription': () => ok(current),
    'GET /api/billing/plans': () => ok({ plans: PLANS }),
    'GET /api/billing/payment-methods': () => ok({ paymentMethods: methods }),
    'GET /api/billing/invoices': () => ok({ invoices: state.invoices ?? [] }),
    'GET /api/analytics/billing/monthly-summary': () => ok(USAGE),
    'GET /api/analytics/stats/real-time': () =>
      ok({ queries: 3, creates: 2, updates: 1, deletes: 0, total: 6 }),
    'POST /api/billing/change-plan': (request) => {
      const { planId } = request.body as { planId: string };
      const chosen = PLANS.find((candidate) => candidate.id === planId)!;
      current = sub({
        plan: chosen.id,
        name: chosen.name,
        currentPeriodEnd: chosen.price ? PERIOD_END : null,
        limitsPlan: { id: chosen.id, name: chosen.name },
      });
      return ok({ success: true, subscription: current });
    },
    'POST /api/billing/checkout': () => ok({ url: 'https://checkout.example/c/pay/cs_1' }),
    'POST /api/billing/cancel-subscription': () => {
      current = { ...current, cancelAtPeriodEnd: true };
      return ok({ success: true, subscription: current });
    },
    'POST /api/billing/reactivate-subscription': () => {
      current = { ...current, cancelAtPeriodEnd: false };
      return ok({ success: true, subscription: current });
    },
    'POST /api/billing/payment-methods/pm_2/default': () => {
      methods = methods.map((method) => ({ ...method, isDefault: method.id === 'pm_2' }));
      return ok({ success: true });
    },
    'DELETE /api/billing/payment-methods/pm_1': () => {
      methods = methods.filter((method) => method.id !== 'pm_1');
      return ok({ success: true });
    },
    'POST /api/billing/setup-intent': () => ({
      status: 409,
      body: { error: 'Payments are not configured on this server', code: 'CONFLICT' },
    }),
    ...overrides,
  });
}

async function openBilling() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/billing');
  expect(
    await screen.findByRole(
      'heading',
      { level: 1, name: 'Billing & Subscription' },
      { timeout: 5000 },
    ),
  ).toBeInTheDocument();
  return { user, ...app };
}

const region = (name: string) => screen.findByRole('region', { name });

describe('Billing & Subscription screen', { timeout: 20_000 }, () => {
  it('shows the free plan, its limits, empty cards and invoices, and the month’s usage', async () => {
    billingServer();
    await openBilling();
    const plan = await region('Current plan');
    expect(within(plan).getByTestId('current-plan-name')).toHaveTextContent('Free');
    const status = within(plan).getByText('Active');
    expect(status.closest('[data-tone]')).toHaveAttribute('data-tone', 'green');
    expect(within(plan).queryByText('Most Popular')).not.toBeInTheDocument();
    expect(within(plan).getByRole('button', { name: 'Change Plan' })).toBeInTheDocument();
    expect(
      within(plan).queryByRole('button', { name: 'Cancel Subscription' }),
    ).not.toBeInTheDocument();
    expect(within(plan).queryByRole('button', { name: 'Reactivate' })).not.toBeInTheDocument();
    expect(
      within(plan).getByText(/Upgrades apply at once; downgrades at the end of the period/),
    ).toBeInTheDocument();

    const limits = await region('Plan features');
    expect(within(limits).getByText('Max Entities').nextSibling).toHaveTextContent('1,000');
    expect(within(limits).getByText('Operations/Month').nextSibling).toHaveTextContent('15,000');
    expect(within(limits).getByText('Webhook Endpoints').nextSibling).toHaveTextContent('0');
    expect(within(limits).getByText('Community support')).toBeInTheDocument();

    expect(await screen.findByText('No payment methods on file')).toBeInTheDocument();
    expect(await screen.findByText('No billing history available')).toBeInTheDocument();

    const usage = await region('Monthly usage');
    await waitFor(() =>
      expect(within(usage).getByRole('listitem', { name: 'Queries' })).toHaveTextContent(
        '20 · 50%',
      ),
    );
    expect(within(usage).getByRole('listitem', { name: 'Creates' })).toHaveTextContent('10 · 25%');
    expect(within(usage).getByRole('listitem', { name: 'Updates' })).toHaveTextContent('6 · 15%');
    expect(within(usage).getByRole('listitem', { name: 'Deletes' })).toHaveTextContent('4 · 10%');
    expect(within(usage).getByRole('listitem', { name: 'Total Operations' })).toHaveTextContent(
      '40 · 100%',
    );
    expect(within(usage).getByTestId('usage-today')).toHaveTextContent(
      'Today: 6 operations (3 queries, 2 creates, 1 update, 0 deletes)',
    );
    expect(within(usage).getByTestId('usage-what-counts')).toHaveTextContent(
      /each successful read or change .* from this app, the REST API or an agent over MCP/,
    );
    const details = await region('Operation details');
    // At most the first 5 operation details (docs/product.md, Numbers).
    expect(within(details).getAllByTestId('usage-detail')).toHaveLength(5);
    // Under the operation on a phone, in its own column from sm up (both in the DOM).
    expect(within(details).getAllByText('Resource 0')).toHaveLength(2);
    expect(within(details).getByText('1.3 ms')).toBeInTheDocument();
    expect(within(details).queryByText('Resource 5')).not.toBeInTheDocument();
  });

  it('marks pro Most Popular, shows the next billing date, Unlimited, and an orange status', async () => {
    billingServer({
      subscription: {
        ...PRO,
        status: 'past_due',
        features: features(1_000, { maxWebhooks: -1 }),
        limitsPlan: { id: 'free', name: 'Free' },
      },
    });
    await openBilling();
    const plan = await region('Current plan');
    expect(within(plan).getByText('Most Popular')).toBeInTheDocument();
    expect(within(plan).getByText('Past due').closest('[data-tone]')).toHaveAttribute(
      'data-tone',
      'orange',
    );
    expect(within(plan).getByTestId('billing-date')).toHaveTextContent(
      'Next billing date March 3, 2027',
    );
    expect(within(plan).getByRole('note')).toHaveTextContent(/Free plan's limits apply/);
    expect(within(plan).getByRole('button', { name: 'Cancel Subscription' })).toBeInTheDocument();
    const limits = await region('Plan features');
    expect(within(limits).getByText('Webhook Endpoints').nextSibling).toHaveTextContent(
      'Unlimited',
    );
  });

  it('cancels at the period end after asking, then reactivates', async () => {
    const { requests } = billingServer({ subscription: PRO });
    const success = vi.spyOn(toast, 'success');
    const { user } = await openBilling();
    const plan = await region('Current plan');
    await user.click(within(plan).getByRole('button', { name: 'Cancel Subscription' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel Subscription' });
    expect(dialog).toHaveTextContent('It stays active until March 3, 2027');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel Subscription' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests.find((r) => r.path === '/api/billing/cancel-subscription')?.body).toEqual({
      immediate: false,
    });
    expect(success).toHaveBeenCalledWith(
      'Subscription will be cancelled at the end of the billing period',
    );
    expect(await within(plan).findByTestId('billing-date')).toHaveTextContent(
      'Subscription ends on March 3, 2027',
    );
    expect(
      within(plan).queryByRole('button', { name: 'Cancel Subscription' }),
    ).not.toBeInTheDocument();

    await user.click(within(plan).getByRole('button', { name: 'Reactivate' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Subscription reactivated'));
    expect(requests.find((r) => r.path === '/api/billing/reactivate-subscription')?.body).toEqual(
      {},
    );
    expect(
      await within(plan).findByRole('button', { name: 'Cancel Subscription' }),
    ).toBeInTheDocument();
  });

  it('tells when cancelling or reactivating fails', async () => {
    billingServer(
      { subscription: { ...PRO, cancelAtPeriodEnd: true } },
      {
        'POST /api/billing/reactivate-subscription': () => ({ status: 500 }),
      },
    );
    const error = vi.spyOn(toast, 'error');
    const { user } = await openBilling();
    const plan = await region('Current plan');
    await user.click(within(plan).getByRole('button', { name: 'Reactivate' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('Failed to reactivate subscription'));
  });

  it('opens the plan dialog on the current plan and follows its documented rules', async () => {
    billingServer({
      subscription: sub({
        plan: 'pro-annual',
        name: 'Pro',
        currentPeriodEnd: PERIOD_END,
        limitsPlan: { id: 'pro-annual', name: 'Pro' },
      }),
    });
    const { user } = await openBilling();
    await user.click(
      within(await region('Current plan')).getByRole('button', { name: 'Change Plan' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    const plans = within(dialog).getByRole('radiogroup', { name: 'Plans' });
    // Annual tab, because the current plan is annual: only yearly plans, the current one chosen.
    expect(within(dialog).getByRole('radio', { name: /Annual/ })).toHaveAttribute(
      'data-state',
      'on',
    );
    expect(within(dialog).getByText('Save 17%')).toBeInTheDocument();
    expect(
      within(plans)
        .getAllByRole('radio')
        .map((radio) => radio.getAttribute('value')),
    ).toEqual(['starter-annual', 'pro-annual', 'team-annual']);
    expect(within(plans).getByRole('radio', { name: 'Pro' })).toBeChecked();
    // Confirming the plan the person is on would change nothing.
    expect(within(dialog).getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    expect(within(dialog).getByTestId('plan-choice-hint')).toHaveTextContent(
      'You are on the Pro plan. Choose another plan to change.',
    );
    await user.click(within(plans).getByRole('radio', { name: 'Power User' }));
    expect(within(dialog).getByTestId('plan-choice-hint')).toHaveTextContent(
      'Power User applies at once.',
    );

    // Monthly tab: month plans and Free; nothing chosen there yet.
    await user.click(within(dialog).getByRole('radio', { name: 'Monthly' }));
    expect(
      within(plans)
        .getAllByRole('radio')
        .map((radio) => radio.getAttribute('value')),
    ).toEqual(['free', 'starter', 'pro', 'team']);
    expect(within(dialog).getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    await user.click(within(plans).getByRole('radio', { name: 'Free' }));
    expect(within(dialog).getByRole('button', { name: 'Downgrade' })).toBeEnabled();
    await user.click(within(plans).getByRole('radio', { name: 'Starter' }));
    expect(within(dialog).getByRole('button', { name: 'Change Plan' })).toBeEnabled();
  });

  it('moves between paid plans with change-plan, and to Free with no price', async () => {
    const { requests } = billingServer({ subscription: PRO });
    const success = vi.spyOn(toast, 'success');
    const { user } = await openBilling();
    const plan = await region('Current plan');

    await user.click(within(plan).getByRole('button', { name: 'Change Plan' }));
    let dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    expect(within(dialog).getByRole('radio', { name: 'Monthly' })).toHaveAttribute(
      'data-state',
      'on',
    );
    expect(within(dialog).getByRole('radio', { name: 'Pro' })).toBeChecked();
    await user.click(within(dialog).getByRole('radio', { name: 'Power User' }));
    await user.click(within(dialog).getByRole('button', { name: 'Change Plan' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests.filter((r) => r.path === '/api/billing/change-plan').at(-1)?.body).toEqual({
      planId: 'team',
      priceId: 'price_team_monthly',
    });
    expect(success).toHaveBeenCalledWith('Plan changed successfully', {
      description: 'You are on the Power User plan.',
    });
    expect(await within(plan).findByText('Power User')).toBeInTheDocument();

    await user.click(within(plan).getByRole('button', { name: 'Change Plan' }));
    dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    expect(within(dialog).getByRole('radio', { name: 'Power User' })).toBeChecked();
    await user.click(within(dialog).getByRole('radio', { name: 'Free' }));
    expect(within(dialog).getByTestId('plan-choice-hint')).toHaveTextContent(
      'Power User stays until March 3, 2027; Free applies from then.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Downgrade' }));
    await waitFor(() =>
      expect(success).toHaveBeenCalledWith('Plan changed to Free', expect.anything()),
    );
    expect(requests.filter((r) => r.path === '/api/billing/change-plan').at(-1)?.body).toEqual({
      planId: 'free',
      priceId: null,
    });
    expect(requests.some((r) => r.path === '/api/billing/checkout')).toBe(false);
  });

  it('shows a scheduled downgrade, and calls it off when the plan in force is chosen again', async () => {
    const scheduled = {
      ...PRO,
      scheduledChange: { plan: 'starter', name: 'Starter', at: PERIOD_END },
    };
    const { requests } = billingServer({ subscription: scheduled });
    const success = vi.spyOn(toast, 'success');
    const { user } = await openBilling();
    const plan = await region('Current plan');
    expect(within(plan).getByTestId('current-plan-name')).toHaveTextContent('Pro');
    expect(await within(plan).findByTestId('scheduled-change')).toHaveTextContent(
      'Moves to Starter on March 3, 2027. Pro and its limits stay until then',
    );

    await user.click(within(plan).getByRole('button', { name: 'Change Plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    const starter = within(dialog).getByRole('radio', { name: 'Starter' }).closest('label')!;
    expect(starter).toHaveTextContent('Scheduled');
    await user.click(within(dialog).getByRole('radio', { name: 'Starter' }));
    expect(within(dialog).getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    await user.click(within(dialog).getByRole('radio', { name: 'Pro' }));
    expect(within(dialog).getByTestId('plan-choice-hint')).toHaveTextContent(
      'Keeps Pro: the move to Starter on March 3, 2027 is called off.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Change Plan' }));
    await waitFor(() =>
      expect(success).toHaveBeenCalledWith('Plan changed successfully', {
        description: 'You are on the Pro plan.',
      }),
    );
    expect(requests.filter((r) => r.path === '/api/billing/change-plan').at(-1)?.body).toEqual({
      planId: 'pro',
      priceId: 'price_pro_monthly',
    });
    await waitFor(() =>
      expect(within(plan).queryByTestId('scheduled-change')).not.toBeInTheDocument(),
    );
  });

  it('goes from Free to a paid plan through checkout, returning to dashboard or billing', async () => {
    const { requests } = billingServer();
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const { user } = await openBilling();
    await user.click(
      within(await region('Current plan')).getByRole('button', { name: 'Change Plan' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    expect(within(dialog).getByRole('radio', { name: 'Free' })).toBeChecked();
    await user.click(within(dialog).getByRole('radio', { name: /Annual/ }));
    // Free is not on the annual tab: nothing is chosen.
    expect(within(dialog).queryByRole('radio', { name: 'Free' })).not.toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    await user.click(within(dialog).getByRole('radio', { name: 'Pro' }));
    await user.click(within(dialog).getByRole('button', { name: 'Change Plan' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.example/c/pay/cs_1'));
    expect(requests.find((r) => r.path === '/api/billing/checkout')?.body).toEqual({
      priceId: 'price_pro_annual',
      successUrl: `${window.location.origin}/dashboard?success=true&plan=pro-annual`,
      cancelUrl: `${window.location.origin}/billing?canceled=true&plan=pro-annual`,
    });
    expect(requests.some((r) => r.path === '/api/billing/change-plan')).toBe(false);
  });

  it('shows the server’s refusal of a plan change, or the intended fallback', async () => {
    billingServer(
      { subscription: PRO },
      {
        'POST /api/billing/change-plan': () => ({
          status: 403,
          body: {
            error: 'Access denied. Only account owners can change billing plans.',
            code: 'FORBIDDEN',
          },
        }),
      },
    );
    const error = vi.spyOn(toast, 'error');
    const { user } = await openBilling();
    await user.click(
      within(await region('Current plan')).getByRole('button', { name: 'Change Plan' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    await user.click(within(dialog).getByRole('radio', { name: 'Starter' }));
    await user.click(within(dialog).getByRole('button', { name: 'Change Plan' }));
    await waitFor(() =>
      expect(error).toHaveBeenCalledWith(
        'Access denied. Only account owners can change billing plans.',
      ),
    );
    // The dialog stays open to try another plan.
    expect(screen.getByRole('dialog', { name: 'Change Plan' })).toBeInTheDocument();
  });

  it('tells a member who is not an owner, before they try, that only owners change billing', async () => {
    const OWNER_ONLY = 'Access denied. Only account owners can change billing plans.';
    billingServer(
      {
        subscription: PRO,
        methods: [
          {
            id: 'pm_1',
            brand: 'visa',
            last4: '4242',
            expMonth: 4,
            expYear: 2030,
            isDefault: true,
          },
        ],
      },
      {
        'GET /auth/me': () => ({
          status: 200,
          body: {
            ...TEST_USER,
            accounts: [...TEST_USER.accounts, { id: 'acme', name: 'Acme', role: 'member' }],
            currentAccountId: 'acme',
          },
        }),
      },
    );
    await openBilling();
    expect(await screen.findByTestId('billing-owner-only')).toHaveTextContent(OWNER_ONLY);
    const plan = await region('Current plan');
    expect(within(plan).getByTestId('current-plan-name')).toHaveTextContent('Pro');
    expect(within(plan).getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    expect(within(plan).getByRole('button', { name: 'Cancel Subscription' })).toBeDisabled();
    const cards = await region('Payment methods');
    expect(within(cards).getByRole('button', { name: 'Add Payment Method' })).toBeDisabled();
    expect(
      await within(cards).findByRole('button', { name: 'Remove Visa ending in 4242' }),
    ).toBeDisabled();
  });

  it('keeps the buttons for an owner, with no such note', async () => {
    billingServer({ subscription: PRO });
    await openBilling();
    const plan = await region('Current plan');
    expect(within(plan).getByRole('button', { name: 'Change Plan' })).toBeEnabled();
    expect(screen.queryByTestId('billing-owner-only')).not.toBeInTheDocument();
  });

  it('says plainly that the operator changes plans, and shows the server’s refusal', async () => {
    const OPERATOR = 'Plan changes on this server are made by its operator.';
    billingServer(
      { subscription: sub({ planChanges: 'operator' }) },
      {
        'POST /api/billing/checkout': () => ({
          status: 403,
          body: { error: OPERATOR, code: 'FORBIDDEN' },
        }),
      },
    );
    const error = vi.spyOn(toast, 'error');
    const { user } = await openBilling();
    const plan = await region('Current plan');
    expect(within(plan).getByTestId('plan-changes')).toHaveTextContent(
      `${OPERATOR} Ask the person who runs it for another plan.`,
    );
    expect(within(plan).queryByText(/plan changes apply at once/)).not.toBeInTheDocument();

    await user.click(within(plan).getByRole('button', { name: 'Change Plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change Plan' });
    expect(dialog).toHaveAccessibleDescription(
      `${OPERATOR} You can move to Free here; ask the person who runs it for any other plan.`,
    );
    await user.click(within(dialog).getByRole('radio', { name: 'Pro' }));
    await user.click(within(dialog).getByRole('button', { name: 'Change Plan' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith(OPERATOR));
    expect(screen.getByRole('dialog', { name: 'Change Plan' })).toBeInTheDocument();
  });

  it('lists cards, makes one the default and removes one after asking', async () => {
    const { requests } = billingServer({
      subscription: { ...PRO, provider: 'stripe', planChanges: 'provider' },
      methods: [
        { id: 'pm_1', brand: 'visa', last4: '4242', expMonth: 4, expYear: 2030, isDefault: true },
        { id: 'pm_2', brand: 'amex', last4: '0005', expMonth: 12, expYear: 2031, isDefault: false },
      ],
    });
    const success = vi.spyOn(toast, 'success');
    const { user } = await openBilling();
    const visa = await screen.findByRole('listitem', { name: 'Visa ending in 4242' });
    expect(visa).toHaveTextContent('•••• 4242');
    expect(visa).toHaveTextContent('Expires 04/2030');
    expect(within(visa).getByText('Default')).toBeInTheDocument();
    expect(within(visa).queryByRole('button', { name: 'Set as Default' })).not.toBeInTheDocument();
    const amex = screen.getByRole('listitem', { name: 'American Express ending in 0005' });
    await user.click(within(amex).getByRole('button', { name: 'Set as Default' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Default payment method updated'));
    expect(
      requests.find((r) => r.path === '/api/billing/payment-methods/pm_2/default')?.body,
    ).toEqual({});
    expect(
      await within(
        screen.getByRole('listitem', { name: 'American Express ending in 0005' }),
      ).findByText('Default'),
    ).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Remove Visa ending in 4242' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove Payment Method' });
    expect(dialog).toHaveTextContent('Visa card ending in 4242');
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Payment method removed'));
    expect(
      requests.some((r) => r.method === 'DELETE' && r.path === '/api/billing/payment-methods/pm_1'),
    ).toBe(true);
    await waitFor(() =>
      expect(
        screen.queryByRole('listitem', { name: 'Visa ending in 4242' }),
      ).not.toBeInTheDocument(),
    );
  });

  it('tells when a card cannot be made default or removed', async () => {
    billingServer(
      {
        methods: [
          {
            id: 'pm_1',
            brand: 'visa',
            last4: '4242',
            expMonth: 4,
            expYear: 2030,
            isDefault: false,
          },
          {
            id: 'pm_2',
            brand: 'visa',
            last4: '1111',
            expMonth: 4,
            expYear: 2030,
            isDefault: false,
          },
        ],
      },
      {
        'POST /api/billing/payment-methods/pm_2/default': () => ({ status: 500 }),
        'DELETE /api/billing/payment-methods/pm_1': () => ({ status: 500 }),
      },
    );
    const error = vi.spyOn(toast, 'error');
    const { user } = await openBilling();
    const card = await screen.findByRole('listitem', { name: 'Visa ending in 1111' });
    await user.click(within(card).getByRole('button', { name: 'Set as Default' }));
    await waitFor(() =>
      expect(error).toHaveBeenCalledWith('Failed to update default payment method'),
    );
    await user.click(screen.getByRole('button', { name: 'Remove Visa ending in 4242' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove Payment Method' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('Failed to remove payment method'));
  });

  it('explains that payments are not configured instead of a card form', async () => {
    const { requests } = billingServer();
    const { user } = await openBilling();
    await user.click(await screen.findByRole('button', { name: 'Add Payment Method' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Payment Method' });
    expect(
      within(dialog).getByText('Payments are not configured on this server'),
    ).toBeInTheDocument();
    // The server said it has no provider: no card setup is even asked for.
    expect(requests.some((r) => r.path === '/api/billing/setup-intent')).toBe(false);
  });

  it('asks the server for a card setup when it has a provider, and shows why it failed', async () => {
    const { requests } = billingServer(
      { subscription: { ...PRO, provider: 'stripe', planChanges: 'provider' } },
      {
        'POST /api/billing/setup-intent': () => ({
          status: 503,
          body: {
            error: 'The payment provider could not be reached. Nothing was changed; try again.',
            code: 'SERVICE_UNAVAILABLE',
          },
        }),
      },
    );
    const { user } = await openBilling();
    await user.click(await screen.findByRole('button', { name: 'Add Payment Method' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Payment Method' });
    expect(
      await within(dialog).findByText(
        'The payment provider could not be reached. Nothing was changed; try again.',
      ),
    ).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/billing/setup-intent')?.body).toEqual({});
  });

  it('lists invoices with amount in USD, a green paid status and links in a new tab', async () => {
    billingServer({
      subscription: PRO,
      invoices: [
        {
          id: 'in_2',
          number: 'ENG-0002',
          created: PERIOD_END,
          amount: 2000,
          status: 'paid',
          hostedInvoiceUrl: 'https://invoices.example/in_2',
          invoicePdf: 'https://invoices.example/in_2.pdf',
        },
        {
          id: 'in_1',
          number: null,
          created: PERIOD_END - 86_400 * 31,
          amount: 1050,
          status: 'open',
          hostedInvoiceUrl: null,
          invoicePdf: null,
        },
      ],
    });
    await openBilling();
    const history = await region('Billing history');
    const table = await within(history).findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Invoice', 'Date', 'Amount', 'Status', 'Actions']);
    const [, paid, open] = within(table).getAllByRole('row');
    expect(paid).toHaveTextContent('ENG-0002');
    expect(paid).toHaveTextContent('Mar 3, 2027');
    expect(paid).toHaveTextContent('$20.00 USD');
    expect(within(paid!).getByText('Paid').closest('[data-tone]')).toHaveAttribute(
      'data-tone',
      'green',
    );
    const view = within(paid!).getByRole('link', { name: 'View invoice ENG-0002' });
    expect(view).toHaveAttribute('href', 'https://invoices.example/in_2');
    expect(view).toHaveAttribute('target', '_blank');
    const pdf = within(paid!).getByRole('link', { name: 'Download invoice ENG-0002 as PDF' });
    expect(pdf).toHaveAttribute('href', 'https://invoices.example/in_2.pdf');
    expect(pdf).toHaveAttribute('target', '_blank');
    expect(open).toHaveTextContent('in_1');
    expect(open).toHaveTextContent('$10.50 USD');
    expect(within(open!).getByText('Open').closest('[data-tone]')).toHaveAttribute(
      'data-tone',
      'orange',
    );
  });

  it('says which part failed to load', async () => {
    billingServer(
      {},
      {
        'GET /api/billing/subscription': () => ({ status: 400 }),
        'GET /api/billing/payment-methods': () => ({ status: 400 }),
        'GET /api/billing/invoices': () => ({ status: 400 }),
        'GET /api/billing/plans': () => ({ status: 400 }),
        'GET /api/analytics/billing/monthly-summary': () => ({ status: 400 }),
        'GET /api/analytics/stats/real-time': () => 'network-error',
      },
    );
    await openBilling();
    expect(await screen.findByText('Failed to load subscription information')).toBeInTheDocument();
    expect(await screen.findByText('Failed to load plans')).toBeInTheDocument();
    expect(await screen.findByText('Failed to load billing history')).toBeInTheDocument();
    expect(await screen.findByText('Failed to load usage data')).toBeInTheDocument();
    // Usage falls back to empty data.
    const usage = await region('Monthly usage');
    expect(within(usage).getByRole('listitem', { name: 'Total Operations' })).toHaveTextContent(
      '0 · 0%',
    );
  });

  it('says when payment methods fail to load', async () => {
    billingServer({}, { 'GET /api/billing/payment-methods': () => ({ status: 400 }) });
    await openBilling();
    expect(await screen.findByText('Failed to load payment methods')).toBeInTheDocument();
  });
});
