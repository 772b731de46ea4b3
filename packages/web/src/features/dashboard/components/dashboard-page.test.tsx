import type { AnalyticsSummary } from '@engram/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { FakeWebSocket } from '@/test/fake-websocket';
import { renderApp } from '@/test/render-app';
import { emptySummary } from '../usage-rules';

function summary(overrides: Partial<AnalyticsSummary> = {}): AnalyticsSummary {
  const today = new Date().toISOString().slice(0, 10);
  return {
    ...emptySummary(),
    totalEntities: 1234,
    accountEntities: 1234,
    totalRelations: 56,
    totalObservations: 789,
    todayApiCalls: 42,
    recentEntities: [
      {
        id: 'e-1',
        name: 'Ada Lovelace',
        type: 'person',
        created_at: '2026-11-05T10:00:00.000Z',
      },
      {
        id: 'e-2',
        name: 'Analytical Engine',
        type: 'technology',
        created_at: '2026-11-04T09:00:00.000Z',
      },
    ],
    entityTypeStats: [
      { type: 'person', label: 'Person', count: 2 },
      { type: 'technology', label: 'Technology', count: 1 },
    ],
    activityStats: [
      { date: '2026-11-05', count: 3 },
      { date: '2026-11-04', count: 1 },
    ],
    monthlyUsage: { queries: 100, creates: 20, updates: 5, deletes: 2, total: 127 },
    operationsThisMonth: 127,
    dailyOperations: [{ date: today, queries: 40, creates: 2, updates: 0, deletes: 0, total: 42 }],
    ...overrides,
  };
}

type Reply = { status: number; body?: unknown } | 'network-error';

function dashboardServer(
  answer: () => Reply,
  extra: Record<string, (request: FakeRequest) => Reply> = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/analytics': answer,
    ...extra,
  });
}

async function openDashboard() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/dashboard');
  expect(
    await screen.findByRole(
      'heading',
      { level: 1, name: 'Knowledge Graph Dashboard' },
      { timeout: 5000 },
    ),
  ).toBeInTheDocument();
  return { user, ...app };
}

const statValue = (label: string) =>
  within(screen.getByRole('group', { name: label })).getByTestId('stat-value');

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('Dashboard (/dashboard)', () => {
  it('shows the loading text, then the totals, lists, actions and usage from GET /api/analytics', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { fetchMock } = dashboardServer(() => ({ status: 200, body: summary() }));
    const answer = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) => {
      if (String(input).includes('/api/analytics')) await gate;
      return answer(input, init);
    });
    await openDashboard();
    expect(screen.getByText('Monitor your AI memory platform activity and insights')).toBeVisible();
    expect(screen.getByText('Loading dashboard...')).toBeVisible();
    release();

    expect(await screen.findByText('1,234')).toBeInTheDocument();
    expect(statValue('Total Entities')).toHaveTextContent('1,234');
    expect(statValue('Relations')).toHaveTextContent('56');
    expect(statValue('Observations')).toHaveTextContent('789');
    expect(statValue('API Calls Today')).toHaveTextContent('42');

    const activity = screen.getByRole('list', { name: 'Recent activity' });
    expect(
      within(activity)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['3 entities createdNov 5, 2026', '1 entities createdNov 4, 2026']);
    expect(screen.getByText('Live')).toBeInTheDocument();

    const recent = screen.getByRole('list', { name: 'Recent entities' });
    expect(within(recent).getByRole('link', { name: 'Ada Lovelace' })).toHaveAttribute(
      'href',
      '/entities/e-1',
    );
    expect(within(recent).getByText('technology')).toBeInTheDocument();

    expect(screen.getByRole('link', { name: /Create Entity/ })).toHaveAttribute(
      'href',
      '/entities?create=1',
    );
    expect(screen.getByRole('link', { name: /View Graph/ })).toHaveAttribute('href', '/graph');
    expect(screen.getByRole('link', { name: /Search Knowledge/ })).toHaveAttribute(
      'href',
      '/search',
    );
    expect(screen.getByRole('button', { name: /Export Data/ })).toBeEnabled();
    expect(screen.getByRole('link', { name: /View Full Billing Details/ })).toHaveAttribute(
      'href',
      '/billing',
    );

    // Current Usage: the free plan's limits from the catalog, bars capped at 100%, red past it.
    const entities = screen.getByRole('progressbar', { name: 'Entities' });
    expect(entities).toHaveAttribute('aria-valuenow', '100');
    expect(entities).toHaveAttribute('data-over', 'true');
    expect(screen.getByText('1,234 / 1,000')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Operations this month' })).toHaveAttribute(
      'aria-valuenow',
      '1',
    );
    expect(screen.getByText('127 / 15,000')).toBeInTheDocument();
    expect(screen.getByText('Not available')).toBeInTheDocument(); // webhooks on free
    expect(screen.getByRole('alert', { name: 'Limit Exceeded' })).toHaveTextContent(
      'Upgrade now to avoid service interruption.',
    );
  });

  it('shows the empty texts and suggests the next plan on an empty account', async () => {
    dashboardServer(() => ({ status: 200, body: emptySummary() }));
    await openDashboard();
    expect(await screen.findByText('No recent activity')).toBeInTheDocument();
    expect(screen.getByText('No entities yet')).toBeInTheDocument();
    expect(statValue('Total Entities')).toHaveTextContent('0');
    expect(screen.getByRole('note', { name: 'Need more capacity?' })).toHaveTextContent(
      'Consider upgrading to Starter for $10/month.',
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    // Nothing in memory yet: the Connect an agent panel comes first, above the totals.
    const connect = screen.getByRole('region', { name: 'Connect an agent' });
    const totals = screen.getByText('Total Entities');
    expect(connect.compareDocumentPosition(totals) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('keeps the Connect an agent panel last once memory holds entities', async () => {
    dashboardServer(() => ({ status: 200, body: summary({ accountEntities: 5 }) }));
    await openDashboard();
    const connect = await screen.findByRole('region', { name: 'Connect an agent' });
    const totals = screen.getByText('Total Entities');
    expect(connect.compareDocumentPosition(totals) & Node.DOCUMENT_POSITION_PRECEDING).toBeTruthy();
  });

  it.each([
    [799, null],
    [800, 'Approaching Limits'],
    [949, 'Approaching Limits'],
    [950, 'Limit Exceeded'],
  ])('at %i of 1,000 entities shows %s', async (totalEntities, notice) => {
    // The limit counts the account's entities in every space, not the space shown.
    dashboardServer(() => ({
      status: 200,
      body: summary({ totalEntities: 3, accountEntities: totalEntities }),
    }));
    await openDashboard();
    await screen.findByText(`${totalEntities} / 1,000`);
    const bar = screen.getByRole('progressbar', { name: 'Entities' });
    expect(bar).toHaveAttribute('data-over', 'false');
    expect(bar).toHaveAttribute('aria-valuenow', String(Math.round(totalEntities / 10)));
    if (notice === null) {
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(screen.getByRole('note', { name: 'Need more capacity?' })).toBeInTheDocument();
    } else {
      const alert = screen.getByRole('alert', { name: notice });
      if (notice === 'Limit Exceeded') {
        expect(alert).toHaveTextContent('Upgrade now to avoid service interruption.');
      } else {
        expect(alert).toHaveTextContent(
          `You have used ${Math.floor(totalEntities / 10)}% of your Free plan’s 1,000 entities.`,
        );
      }
    }
  });

  it('reads the plan and its limits from the server: Team Pro suggests Enterprise, unlimited webhooks', async () => {
    dashboardServer(() => ({
      status: 200,
      body: summary({
        totalEntities: 10,
        accountEntities: 10,
        userPlan: 'pro',
        plan: {
          id: 'pro-annual',
          name: 'Pro',
          limits: { entities: 100_000, operationsPerMonth: 1_000_000, apiKeys: 10, webhooks: 20 },
        },
      }),
    }));
    await openDashboard();
    expect(await screen.findByText('10 / 100,000')).toBeInTheDocument();
    expect(screen.getByText('Pro plan')).toBeInTheDocument();
    expect(screen.getByRole('note', { name: 'Need more capacity?' })).toHaveTextContent(
      'Consider upgrading to Team Pro for $60/month.',
    );
  });

  it('shows a red alert over zeroed numbers on the free plan when loading fails, and refresh reloads', async () => {
    let fail = true;
    const { requests } = dashboardServer(() =>
      fail
        ? { status: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' } }
        : { status: 200, body: summary() },
    );
    const { user } = await openDashboard();
    expect(
      await screen.findByText('Failed to load dashboard data', undefined, { timeout: 8000 }),
    ).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to load dashboard data');
    expect(statValue('Total Entities')).toHaveTextContent('0');
    expect(statValue('API Calls Today')).toHaveTextContent('0');
    expect(screen.getByText('Free plan')).toBeInTheDocument();
    expect(screen.getByText('0 / 1,000')).toBeInTheDocument();

    fail = false;
    const before = requests.filter((request) => request.path === '/api/analytics').length;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('1,234')).toBeInTheDocument();
    expect(screen.queryByText('Failed to load dashboard data')).not.toBeInTheDocument();
    expect(requests.filter((request) => request.path === '/api/analytics').length).toBe(before + 1);
  }, 15_000);

  it('reloads when a graph event arrives over the realtime connection', async () => {
    let entities = 1;
    dashboardServer(() => ({ status: 200, body: summary({ totalEntities: entities }) }));
    await openDashboard();
    await waitFor(() => expect(statValue('Total Entities')).toHaveTextContent('1'));
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
    const socket = FakeWebSocket.latest;
    act(() => socket.accept());
    await waitFor(() =>
      expect(screen.getByText('Live').closest('[data-live]')).toHaveAttribute('data-live', 'true'),
    );
    entities = 2;
    act(() =>
      socket.event('entity_created', 1, { entityId: 'b', id: 'b', name: 'B', type: 'person' }),
    );
    await waitFor(() => expect(statValue('Total Entities')).toHaveTextContent('2'));
  });

  it('Export Data only shows the spec’s alert, and asks the server nothing', async () => {
    const { requests } = dashboardServer(() => ({ status: 200, body: summary() }));
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => undefined);
    const { user } = await openDashboard();
    await user.click(await screen.findByRole('button', { name: /Export Data/ }));
    expect(alert).toHaveBeenCalledWith('Export functionality will be implemented soon');
    expect(requests.some((request) => request.path === '/api/export')).toBe(false);
  });

  it('offers a viewer no Create Entity among the quick actions', async () => {
    dashboardServer(() => ({ status: 200, body: summary() }), {
      'GET /auth/me': () => ({ status: 200, body: testUserAs('viewer') }),
    });
    await openDashboard();
    expect(await screen.findByRole('link', { name: /View Graph/ })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Create Entity/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Export Data/ })).toBeEnabled();
  });
});
