import type { Subscription, Webhook, WebhookDelivery } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { fakeSpace, fakeSpaces } from '@/test/fake-spaces';
import { renderApp } from '@/test/render-app';

const SECRET = 'whsec_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const NEW_SECRET = 'whsec_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210';

function webhook(overrides: Partial<Webhook> = {}): Webhook {
  return {
    id: 'wh-1',
    url: 'https://hooks.example.com/engram',
    events: ['*'],
    description: null,
    space: null,
    enabled: true,
    disabledReason: null,
    failingSince: null,
    nextRetryAt: null,
    createdAt: '2027-01-05T10:00:00.000Z',
    ...overrides,
  };
}

function delivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: 'dl-1',
    eventId: 'evt_1',
    event: 'entity_created',
    seq: 12,
    status: 'succeeded',
    statusCode: 200,
    durationMs: 84,
    attempt: 1,
    nextRetryAt: null,
    error: null,
    responseExcerpt: 'ok',
    manual: false,
    createdAt: '2027-01-05T10:00:00.000Z',
    updatedAt: '2027-01-05T10:00:00.000Z',
    ...overrides,
  };
}

function subscription(maxWebhooks: number, name = 'Pro'): Subscription {
  return {
    plan: name.toLowerCase(),
    name,
    status: 'active',
    cancelAtPeriodEnd: false,
    currentPeriodEnd: null,
    features: { maxEntities: 1, maxQueries: 1, maxApiKeys: 1, maxWebhooks, features: [] },
    limitsPlan: { id: name.toLowerCase(), name },
    scheduledChange: null,
    provider: 'none',
    planChanges: 'self',
  };
}

type Reply = { status: number; body?: unknown } | 'network-error';

interface ServerState {
  webhooks?: Webhook[];
  maxWebhooks?: number;
  planName?: string;
  deliveries?: WebhookDelivery[];
  overrides?: Record<string, (request: FakeRequest) => Reply>;
}

/** A signed-in session against a fake /api/webhooks that remembers what changed. */
function webhooksServer({
  webhooks: initial = [],
  maxWebhooks = 5,
  planName = 'Pro',
  deliveries = [],
  overrides = {},
}: ServerState = {}) {
  localStorage.setItem('auth_token', 'valid-token');
  let webhooks = [...initial];
  const spaces = fakeSpaces([fakeSpace('default', 'Default'), fakeSpace('alpha', 'Project Alpha')]);
  const one = (id: string) => webhooks.find((item) => item.id === id)!;
  const handlers: Record<string, (request: FakeRequest) => Reply> = {
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/billing/subscription': () => ({
      status: 200,
      body: subscription(maxWebhooks, planName),
    }),
    'GET /api/webhooks': () => ({ status: 200, body: { webhooks } }),
    'POST /api/webhooks': ({ body }) => {
      const input = body as { url: string; events: string[]; description?: string; space?: string };
      const created = webhook({
        id: 'wh-new',
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        space: input.space ?? null,
      });
      webhooks = [...webhooks, created];
      return { status: 201, body: { ...created, secret: SECRET } };
    },
    ...spaces.handlers,
  };
  for (const item of initial) {
    const path = `/api/webhooks/${item.id}`;
    handlers[`PATCH ${path}`] = ({ body }) => {
      const changes = body as Partial<Webhook>;
      webhooks = webhooks.map((w) =>
        w.id !== item.id
          ? w
          : changes.enabled === true
            ? { ...w, ...changes, disabledReason: null, failingSince: null }
            : { ...w, ...changes },
      );
      return { status: 200, body: one(item.id) };
    };
    handlers[`DELETE ${path}`] = () => {
      webhooks = webhooks.filter((w) => w.id !== item.id);
      return { status: 204 };
    };
    handlers[`POST ${path}/test`] = () => ({
      status: 200,
      body: delivery({ id: 'dl-ping', event: 'ping', seq: null, manual: true }),
    });
    handlers[`POST ${path}/rotate-secret`] = () => ({
      status: 200,
      body: { secret: NEW_SECRET, previousSecretExpiresAt: '2027-01-06T10:00:00.000Z' },
    });
    handlers[`GET ${path}/deliveries`] = ({ query }) => {
      const start = query.get('cursor') ? Number(query.get('cursor')) : 0;
      const limit = Number(query.get('limit'));
      const page = deliveries.slice(start, start + limit);
      const more = start + limit < deliveries.length;
      return {
        status: 200,
        body: { deliveries: page, nextCursor: more ? String(start + limit) : null },
      };
    };
  }
  return fakeServer({ ...handlers, ...overrides });
}

async function openTab() {
  const user = userEvent.setup({ delay: null });
  const view = renderApp('/settings/webhooks');
  const card = await screen.findByRole('region', { name: 'Webhooks' }, { timeout: 5000 });
  return { user, card, ...view };
}

describe('Settings → Webhooks', { timeout: 20_000 }, () => {
  it('is a tab of Settings, after Spaces', async () => {
    webhooksServer();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/settings/spaces');
    const tabs = await screen.findByRole(
      'navigation',
      { name: 'Settings sections' },
      { timeout: 5000 },
    );
    expect(
      within(tabs)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Account', 'Members', 'Spaces', 'Webhooks', 'Import/Export']);
    await user.click(within(tabs).getByRole('link', { name: 'Webhooks' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/webhooks'));
    const card = await screen.findByRole('region', { name: 'Webhooks' });
    expect(await within(card).findByText(/No endpoints yet/)).toBeVisible();
    expect(within(card).getByTestId('webhook-limit')).toHaveTextContent('0 of 5 endpoints');
  });

  it('lists endpoints with what they hear, their state, and why one was turned off', async () => {
    webhooksServer({
      maxWebhooks: -1,
      webhooks: [
        webhook({ description: 'CRM sync' }),
        webhook({
          id: 'wh-2',
          url: 'https://failing.example.com/hook',
          events: ['entity_created', 'relation_created'],
          space: 'alpha',
          failingSince: '2027-01-05T08:00:00.000Z',
        }),
        webhook({
          id: 'wh-3',
          url: 'https://gone.example.com/hook',
          enabled: false,
          disabledReason: 'Disabled after failing for 24 hours. Last error: HTTP 500',
        }),
      ],
    });
    const { card } = await openTab();
    const list = await within(card).findByRole('list', { name: 'Endpoints' });
    const [first, failing, off] = within(list).getAllByRole('article');
    expect(first).toHaveAccessibleName('https://hooks.example.com/engram');
    expect(within(first!).getByText('CRM sync')).toBeVisible();
    expect(within(first!).getByText('All events')).toBeVisible();
    expect(within(first!).getByText(/all spaces/)).toBeVisible();
    expect(within(first!).getByTestId('webhook-state')).toHaveTextContent('Enabled');

    expect(within(failing!).getByText('entity_created, relation_created')).toBeVisible();
    expect(within(failing!).getByText('alpha')).toBeVisible();
    expect(within(failing!).getByTestId('webhook-state')).toHaveTextContent('Failing');
    expect(within(failing!).getByTestId('webhook-failing')).toHaveTextContent(/^Failing since/);

    expect(within(off!).getByTestId('webhook-state')).toHaveTextContent('Turned off');
    expect(within(off!).getByTestId('webhook-disabled-reason')).toHaveTextContent(
      'Turned off by Engram. Disabled after failing for 24 hours. Last error: HTTP 500. Enable it to send again',
    );
    expect(within(off!).getByRole('button', { name: 'Enable' })).toBeVisible();
    expect(within(card).getByTestId('webhook-limit')).toHaveTextContent('3 endpoints · Unlimited');
  });

  it('adds an endpoint for chosen events in one space and shows its secret once', async () => {
    const server = webhooksServer();
    const { user, card } = await openTab();
    await user.click(await within(card).findByRole('button', { name: 'Add endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add endpoint' });
    const submit = within(dialog).getByRole('button', { name: 'Add endpoint' });

    // Nothing is sent while the URL is missing or unreadable.
    await user.click(submit);
    expect(within(dialog).getByText('URL is required')).toBeVisible();
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'example.com/hook');
    await user.click(submit);
    expect(within(dialog).getByText(/must be an absolute http\(s\) URL/)).toBeVisible();
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0);

    await user.clear(within(dialog).getByLabelText('Endpoint URL'));
    await user.type(within(dialog).getByLabelText('Endpoint URL'), ' https://crm.example.com/in ');
    await user.type(within(dialog).getByLabelText('Description (optional)'), 'CRM sync');
    await user.click(within(dialog).getByRole('checkbox', { name: /All events/ }));
    await user.click(submit);
    expect(within(dialog).getByText('Choose at least one event')).toBeVisible();
    const types = within(dialog).getByRole('list', { name: 'Event types' });
    await user.click(within(types).getByRole('checkbox', { name: 'relation_created' }));
    await user.click(within(types).getByRole('checkbox', { name: 'entity_created' }));

    await user.click(within(dialog).getByRole('radio', { name: 'One space' }));
    await user.click(submit);
    expect(within(dialog).getByText('Choose a space, or All spaces')).toBeVisible();
    await user.click(await within(dialog).findByRole('radio', { name: /alpha/ }));
    await user.click(submit);

    await waitFor(() => expect(dialog).not.toBeInTheDocument());
    const post = server.requests.find((r) => r.method === 'POST' && r.path === '/api/webhooks');
    expect(post?.body).toEqual({
      url: 'https://crm.example.com/in',
      events: ['entity_created', 'relation_created'],
      description: 'CRM sync',
      space: 'alpha',
    });
    // The account's endpoints are not a space's: no space header.
    expect(post?.headers.get('X-Engram-Space')).toBeNull();

    const banner = screen.getByRole('region', { name: 'Endpoint added' });
    expect(within(banner).getByTestId('new-webhook-secret')).toHaveTextContent(SECRET);
    await user.click(within(banner).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(await within(banner).findByRole('button', { name: 'Copied' })).toBeVisible();

    const added = await within(card).findByRole('article', { name: 'https://crm.example.com/in' });
    expect(within(added).getByText('entity_created, relation_created')).toBeVisible();
    expect(within(card).getByTestId('webhook-limit')).toHaveTextContent('1 of 5 endpoints');

    await user.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(SECRET)).not.toBeInTheDocument();
  });

  it('shows a refused URL under its field and a plan limit with a way to upgrade', async () => {
    let answer: Reply = {
      status: 400,
      body: {
        error: 'Validation failed',
        code: 'VALIDATION_ERROR',
        details: [{ field: 'url', message: 'URL must use https' }],
      },
    };
    webhooksServer({ overrides: { 'POST /api/webhooks': () => answer } });
    const { user, card } = await openTab();
    await user.click(await within(card).findByRole('button', { name: 'Add endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add endpoint' });
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'http://crm.example.com/in');
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(await within(dialog).findByText('URL must use https')).toBeVisible();
    expect(within(dialog).getByLabelText('Endpoint URL')).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();

    answer = {
      status: 402,
      body: {
        error: 'Your Pro plan allows 5 webhook endpoints; delete one or upgrade your plan',
        code: 'PLAN_LIMIT_REACHED',
      },
    };
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('Your Pro plan allows 5 webhook endpoints');
    expect(within(alert).getByRole('link', { name: 'See plans' })).toHaveAttribute(
      'href',
      '/pricing',
    );
  });

  it('on the Free plan says webhooks are not included, with a link to the plans', async () => {
    webhooksServer({ maxWebhooks: 0, planName: 'Free' });
    const { card } = await openTab();
    const note = await within(card).findByTestId('webhooks-plan-note');
    expect(note).toHaveTextContent('Your Free plan does not include webhooks.');
    expect(within(note).getByRole('link', { name: 'Compare plans' })).toHaveAttribute(
      'href',
      '/pricing',
    );
    expect(within(card).queryByRole('button', { name: 'Add endpoint' })).not.toBeInTheDocument();
    expect(within(card).queryByText(/No endpoints yet/)).not.toBeInTheDocument();
  });

  it('holds Add back when every endpoint of the plan is in use', async () => {
    webhooksServer({ maxWebhooks: 1, webhooks: [webhook()] });
    const { card } = await openTab();
    await within(card).findByRole('article');
    expect(within(card).getByTestId('webhook-limit')).toHaveTextContent('1 of 1 endpoint');
    await waitFor(() =>
      expect(within(card).getByRole('button', { name: 'Add endpoint' })).toBeDisabled(),
    );
    expect(within(card).getByRole('link', { name: 'upgrade your plan' })).toBeVisible();
  });

  it('disables and enables an endpoint from its actions', async () => {
    const server = webhooksServer({ webhooks: [webhook()] });
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openTab();
    const item = await within(card).findByRole('article');
    await user.click(within(item).getByRole('button', { name: /Actions for/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Disable' }));
    await waitFor(() =>
      expect(within(item).getByTestId('webhook-state')).toHaveTextContent('Disabled'),
    );
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({ enabled: false });
    expect(success).toHaveBeenCalledWith('Endpoint disabled');

    await user.click(within(item).getByRole('button', { name: 'Enable' }));
    await waitFor(() =>
      expect(within(item).getByTestId('webhook-state')).toHaveTextContent('Enabled'),
    );
    expect(server.requests.filter((r) => r.method === 'PATCH').at(-1)?.body).toEqual({
      enabled: true,
    });
  });

  it('edits an endpoint: its URL, description and events; its space stays', async () => {
    const server = webhooksServer({
      webhooks: [webhook({ description: 'CRM sync', space: 'alpha' })],
    });
    const { user, card } = await openTab();
    const item = await within(card).findByRole('article');
    await user.click(within(item).getByRole('button', { name: /Actions for/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit endpoint' });
    expect(within(dialog).getByLabelText('Endpoint URL')).toHaveValue(
      'https://hooks.example.com/engram',
    );
    expect(within(dialog).getByRole('checkbox', { name: /All events/ })).toBeChecked();
    expect(dialog).toHaveTextContent('only alpha (set when the endpoint was added)');
    await user.clear(within(dialog).getByLabelText('Endpoint URL'));
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'https://hooks.example.com/v2');
    await user.clear(within(dialog).getByLabelText('Description (optional)'));
    await user.click(within(dialog).getByRole('checkbox', { name: /All events/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: 'entity_deleted' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(dialog).not.toBeInTheDocument());
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      url: 'https://hooks.example.com/v2',
      events: ['entity_deleted'],
      description: null,
    });
    const saved = await within(card).findByRole('article', {
      name: 'https://hooks.example.com/v2',
    });
    expect(within(saved).getByText('entity_deleted')).toBeVisible();
    expect(within(saved).queryByText('CRM sync')).not.toBeInTheDocument();
  });

  it('sends a test and opens the log, where it shows', async () => {
    let sent = false;
    const ping = delivery({ id: 'dl-ping', event: 'ping', seq: null, manual: true });
    webhooksServer({
      webhooks: [webhook()],
      overrides: {
        'POST /api/webhooks/wh-1/test': () => {
          sent = true;
          return { status: 200, body: ping };
        },
        'GET /api/webhooks/wh-1/deliveries': () => ({
          status: 200,
          body: { deliveries: sent ? [ping] : [], nextCursor: null },
        }),
      },
    });
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openTab();
    const item = await within(card).findByRole('article');
    await user.click(within(item).getByRole('button', { name: 'Send test' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Test delivered: 200 in 84 ms'));
    const log = await within(item).findByRole('table', { name: /Deliveries to/ });
    const row = (await within(log).findAllByTestId('delivery'))[0]!;
    expect(within(row).getByText('ping')).toBeVisible();
    expect(within(row).getByText('Succeeded')).toBeVisible();
    expect(within(row).getByText('200')).toBeVisible();
    expect(within(row).getByText('84 ms')).toBeVisible();
  });

  it('shows the deliveries log with retries, loads more by cursor and redelivers', async () => {
    const deliveries = [
      delivery({
        id: 'dl-retry',
        status: 'retrying',
        statusCode: 503,
        durationMs: 1234,
        attempt: 3,
        nextRetryAt: new Date(Date.now() + 5 * 60_000).toISOString(),
        error: 'HTTP 503',
        responseExcerpt: 'Service Unavailable',
      }),
      delivery({
        id: 'dl-refused',
        status: 'failed',
        statusCode: null,
        durationMs: 3,
        error: 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.5:443',
      }),
      ...Array.from({ length: 10 }, (_, index) =>
        delivery({ id: `dl-${index}`, event: 'observation_added', seq: 100 - index }),
      ),
    ];
    const server = webhooksServer({
      webhooks: [webhook()],
      deliveries,
      overrides: {
        'POST /api/webhooks/wh-1/deliveries/dl-retry/redeliver': () => ({
          status: 200,
          body: delivery({ id: 'dl-again', manual: true }),
        }),
      },
    });
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openTab();
    const item = await within(card).findByRole('article');
    await user.click(within(item).getByRole('button', { name: 'Deliveries' }));
    const log = await within(item).findByRole('table', { name: /Deliveries to/ });
    await waitFor(() => expect(within(log).getAllByTestId('delivery')).toHaveLength(10));
    const retrying = within(log).getAllByTestId('delivery')[0]!;
    expect(within(retrying).getByText('Retrying')).toBeVisible();
    expect(within(retrying).getByText('503')).toBeVisible();
    expect(within(retrying).getByText('1.2 s')).toBeVisible();
    expect(within(retrying).getByText('3')).toBeVisible();
    expect(within(retrying).getByText('in 5 min')).toBeVisible();
    // The status is in its column: the note is what the receiver said.
    expect(within(retrying).getByTestId('delivery-note')).toHaveTextContent('Service Unavailable');
    const refused = within(log).getAllByTestId('delivery')[1]!;
    expect(within(refused).getByText('Failed')).toBeVisible();
    expect(within(refused).getByTestId('delivery-note')).toHaveTextContent(/^ECONNREFUSED/);

    await user.click(within(item).getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(log).getAllByTestId('delivery')).toHaveLength(12));
    expect(within(item).queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    const pages = server.requests.filter((r) => r.path === '/api/webhooks/wh-1/deliveries');
    expect(pages.at(-1)?.query.get('cursor')).toBe('10');

    await user.click(within(retrying).getByRole('button', { name: /^Redeliver entity_created/ }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Delivered: 200 in 84 ms'));
    expect(
      server.requests.some((r) => r.path === '/api/webhooks/wh-1/deliveries/dl-retry/redeliver'),
    ).toBe(true);
  });

  it('rotates the secret: shows the new one once and until when the old one signs', async () => {
    webhooksServer({ webhooks: [webhook()] });
    const { user, card } = await openTab();
    const item = await within(card).findByRole('article');
    await user.click(within(item).getByRole('button', { name: /Actions for/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Rotate secret' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rotate signing secret' });
    expect(dialog).toHaveTextContent('For 24 hours the previous secret signs them too');
    await user.click(within(dialog).getByRole('button', { name: 'Rotate secret' }));
    await waitFor(() => expect(dialog).not.toBeInTheDocument());
    const banner = screen.getByRole('region', { name: 'Signing secret rotated' });
    expect(within(banner).getByTestId('new-webhook-secret')).toHaveTextContent(NEW_SECRET);
    expect(banner).toHaveTextContent(/The previous secret signs them too until Jan 6, 2027/);
  });

  it('deletes an endpoint after asking', async () => {
    const server = webhooksServer({ webhooks: [webhook()] });
    const { user, card } = await openTab();
    const item = await within(card).findByRole('article');
    await user.click(within(item).getByRole('button', { name: /Actions for/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete endpoint' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(server.requests.some((r) => r.method === 'DELETE')).toBe(false);

    await user.click(within(item).getByRole('button', { name: /Actions for/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const again = await screen.findByRole('dialog', { name: 'Delete endpoint' });
    await user.click(within(again).getByRole('button', { name: 'Delete endpoint' }));
    await waitFor(() => expect(again).not.toBeInTheDocument());
    expect(await within(card).findByText(/No endpoints yet/)).toBeVisible();
    expect(server.requests.find((r) => r.method === 'DELETE')?.path).toBe('/api/webhooks/wh-1');
  });

  it.each(['member', 'viewer'] as const)(
    'tells a %s that only owners and admins manage webhooks, and asks the server nothing',
    async (role) => {
      const server = webhooksServer({
        webhooks: [webhook()],
        overrides: { 'GET /auth/me': () => ({ status: 200, body: testUserAs(role) }) },
      });
      const { card } = await openTab();
      expect(within(card).getByRole('note')).toHaveTextContent(
        'Only owners and admins manage webhooks.',
      );
      expect(within(card).queryByRole('button', { name: 'Add endpoint' })).toBeNull();
      expect(within(card).queryByText('https://hooks.example.com/engram')).toBeNull();
      expect(screen.queryByText('Failed to load webhooks')).toBeNull();
      // Nothing that would answer 403: not the endpoints, not the plan's limit.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const asked = server.requests.map((request) => request.path);
      expect(asked.filter((path) => path.startsWith('/api/webhooks'))).toEqual([]);
      expect(asked).not.toContain('/api/billing/subscription');
    },
  );

  it('shows an admin the endpoints', async () => {
    webhooksServer({
      webhooks: [webhook()],
      overrides: { 'GET /auth/me': () => ({ status: 200, body: testUserAs('admin') }) },
    });
    const { card } = await openTab();
    expect(await within(card).findByText('https://hooks.example.com/engram')).toBeVisible();
    expect(within(card).queryByTestId('webhooks-admins-only')).toBeNull();
  });
});
