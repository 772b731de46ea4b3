import type { ApiKey, Subscription } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

const FULL_KEY = 'eng_key_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const ROLLED_KEY = 'eng_key_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210';

function apiKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 'key-1',
    name: 'Production agent',
    keyPreview: 'eng_ke…0000',
    permissions: [],
    expiresAt: null,
    isExpired: false,
    isExpiringSoon: false,
    lastUsedAt: null,
    createdAt: '2027-01-05T10:00:00.000Z',
    createdBy: { id: 'user-1', name: 'Ada Lovelace' },
    usage: { totalRequests: 0, activeDays: 0 },
    replacedById: null,
    replacesId: null,
    ...overrides,
  };
}

type Reply = { status: number; body?: unknown } | 'network-error';

/** A signed-in session against a fake /api/keys that remembers what was created. */
function keysServer(
  initial: ApiKey[] = [],
  overrides: Record<string, (request: FakeRequest) => Reply> = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  let keys = [...initial];
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/keys': () => ({ status: 200, body: { apiKeys: keys } }),
    'POST /api/keys': (request) => {
      const { name } = request.body as { name: string };
      const created = apiKey({ id: 'key-new', name, keyPreview: 'eng_ke…6789' });
      keys = [created, ...keys];
      return { status: 201, body: { ...created, apiKey: FULL_KEY } };
    },
    'POST /api/keys/key-new/roll': () => {
      const successor = apiKey({
        id: 'key-rolled',
        name: 'CI agent',
        keyPreview: 'eng_ke…3210',
        replacesId: 'key-new',
      });
      const expiresAt = '2027-01-19T10:00:00.000Z';
      keys = [
        successor,
        ...keys.map((key) =>
          key.id === 'key-new'
            ? { ...key, expiresAt, isExpiringSoon: true, replacedById: 'key-rolled' }
            : key,
        ),
      ];
      return {
        status: 200,
        body: {
          newKey: { ...successor, apiKey: ROLLED_KEY },
          oldKey: { id: 'key-new', expiresAt },
        },
      };
    },
    'DELETE /api/keys/key-1': () => {
      keys = keys.filter((key) => key.id !== 'key-1');
      return { status: 200, body: { success: true } };
    },
    ...overrides,
  });
}

async function openScreen() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/api-keys');
  expect(
    await screen.findByRole('heading', { level: 1, name: 'API Keys' }, { timeout: 5000 }),
  ).toBeInTheDocument();
  return { user, ...app };
}

async function createKey(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(screen.getByRole('button', { name: 'Create API Key' }));
  const dialog = await screen.findByRole('dialog', { name: 'Create API Key' });
  await user.type(within(dialog).getByLabelText('Key Name'), name);
  await user.click(within(dialog).getByRole('button', { name: 'Create API Key' }));
  return dialog;
}

const card = (name: string) => screen.getByRole('article', { name });
const banner = () => screen.queryByRole('region', { name: /API key (created|rolled)/ });

// Whole flows through the real routes: generous time for a busy machine.
describe('API Keys screen', { timeout: 20_000 }, () => {
  it('shows the empty state, whose button opens the create dialog', async () => {
    keysServer();
    const { user } = await openScreen();
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create Your First API Key' }));
    expect(await screen.findByRole('dialog', { name: 'Create API Key' })).toBeInTheDocument();
  });

  it('shows a loading state until the keys arrive', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    let answer: (response: Response) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL) =>
        String(input).endsWith('/auth/me')
          ? Promise.resolve(new Response(JSON.stringify(TEST_USER), { status: 200 }))
          : String(input).endsWith('/api/keys')
            ? new Promise<Response>((resolve) => (answer = resolve))
            : // The plan's key limit, read beside the list: not known here.
              Promise.resolve(new Response(null, { status: 404 })),
      ),
    );
    await openScreen();
    expect(await screen.findByText('Loading API keys...')).toBeInTheDocument();
    answer(new Response(JSON.stringify({ apiKeys: [] }), { status: 200 }));
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    expect(screen.queryByText('Loading API keys...')).not.toBeInTheDocument();
  });

  it('keeps Create disabled while the name is blank and sends the trimmed name with no permissions', async () => {
    const { requests } = keysServer();
    const { user } = await openScreen();
    await user.click(screen.getByRole('button', { name: 'Create API Key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API Key' });
    const create = within(dialog).getByRole('button', { name: 'Create API Key' });
    expect(create).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Key Name'), '   ');
    expect(create).toBeDisabled();
    await user.keyboard('{Enter}');
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(0);
    await user.type(within(dialog).getByLabelText('Key Name'), 'CI agent ');
    expect(create).toBeEnabled();
    await user.click(create);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const post = requests.find((request) => request.method === 'POST');
    expect(post?.path).toBe('/api/keys');
    expect(post?.body).toEqual({ name: 'CI agent', permissions: [] });
  });

  it('shows a new key in full once, then only masked with reveal and copy', async () => {
    keysServer();
    const { user } = await openScreen();
    await screen.findByText('No API keys yet');
    await createKey(user, 'CI agent');

    const shown = await screen.findByRole('region', { name: 'API key created' });
    expect(within(shown).getByText(FULL_KEY)).toBeInTheDocument();
    expect(
      within(shown).getByText("Save this key now - you won't be able to see it again!"),
    ).toBeInTheDocument();
    await user.click(within(shown).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(FULL_KEY);
    expect(within(shown).getByRole('button', { name: 'Copied' })).toBeInTheDocument();

    const keyCard = await screen.findByRole('article', { name: 'CI agent' });
    expect(within(keyCard).getByTestId('key-value')).toHaveTextContent('eng_ke…6789');

    await user.click(within(shown).getByRole('button', { name: 'Dismiss' }));
    expect(banner()).not.toBeInTheDocument();
    expect(screen.queryByText(FULL_KEY)).not.toBeInTheDocument();

    // Reveal and hide on the card, for the rest of this session.
    await user.click(within(keyCard).getByRole('button', { name: 'Show key' }));
    expect(within(keyCard).getByTestId('key-value')).toHaveTextContent(FULL_KEY);
    await user.click(within(keyCard).getByRole('button', { name: 'Hide key' }));
    expect(within(keyCard).getByTestId('key-value')).toHaveTextContent('eng_ke…6789');
    await navigator.clipboard.writeText('');
    await user.click(within(keyCard).getByRole('button', { name: 'Copy key' }));
    expect(await navigator.clipboard.readText()).toBe(FULL_KEY);

    // Leaving and coming back does not bring the banner back.
    await user.click(screen.getByRole('button', { name: /Account menu/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Settings' }));
    await screen.findByRole('heading', { level: 1, name: 'Settings' });
    await user.click(screen.getByRole('button', { name: /Account menu/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'API Keys' }));
    expect(await screen.findByRole('article', { name: 'CI agent' })).toBeInTheDocument();
    expect(banner()).not.toBeInTheDocument();
    expect(within(card('CI agent')).getByRole('button', { name: 'Show key' })).toBeInTheDocument();
  });

  it('offers no reveal or copy for keys from earlier sessions, only the masked preview', async () => {
    keysServer([apiKey()]);
    await openScreen();
    const keyCard = await screen.findByRole('article', { name: 'Production agent' });
    expect(within(keyCard).getByTestId('key-value')).toHaveTextContent('eng_ke…0000');
    expect(within(keyCard).queryByRole('button', { name: 'Show key' })).not.toBeInTheDocument();
    expect(within(keyCard).queryByRole('button', { name: 'Copy key' })).not.toBeInTheDocument();
  });

  it('shows usage, last use, creator and expiry of each key', async () => {
    keysServer([
      apiKey({
        usage: { totalRequests: 12345, activeDays: 7 },
        lastUsedAt: '2027-02-01T12:00:00.000Z',
        expiresAt: '2027-06-01T12:00:00.000Z',
      }),
      apiKey({ id: 'key-2', name: 'Unused key' }),
    ]);
    await openScreen();
    const used = await screen.findByRole('article', { name: 'Production agent' });
    expect(within(used).getByText('12,345')).toBeInTheDocument();
    expect(within(used).getByText('7')).toBeInTheDocument();
    expect(within(used).getByText(/^Feb 1, 2027/)).toBeInTheDocument();
    expect(within(used).getByText('Jun 1, 2027')).toBeInTheDocument();
    expect(within(used).getByText('Created Jan 5, 2027 by Ada Lovelace')).toBeInTheDocument();
    const unused = card('Unused key');
    expect(within(unused).getByText('Never')).toBeInTheDocument();
    expect(within(unused).getByText('Never expires')).toBeInTheDocument();
  });

  it('marks expired keys red and keys expiring soon amber, with their badges', async () => {
    keysServer([
      apiKey({ id: 'a', name: 'Active key' }),
      apiKey({
        id: 'b',
        name: 'Soon key',
        isExpiringSoon: true,
        expiresAt: '2027-01-09T10:00:00.000Z',
      }),
      apiKey({
        id: 'c',
        name: 'Old key',
        isExpired: true,
        isExpiringSoon: false,
        expiresAt: '2027-01-01T10:00:00.000Z',
      }),
    ]);
    await openScreen();
    const expired = await screen.findByRole('article', { name: 'Old key' });
    expect(expired).toHaveAttribute('data-state', 'expired');
    expect(expired).toHaveClass('bg-destructive-soft');
    expect(within(expired).getByText('Expired', { selector: 'span' })).toBeInTheDocument();
    expect(within(expired).queryByText('Expires Soon')).not.toBeInTheDocument();

    const soon = card('Soon key');
    expect(soon).toHaveAttribute('data-state', 'expiring-soon');
    expect(soon).toHaveClass('bg-warning-soft');
    expect(within(soon).getByText('Expires Soon')).toBeInTheDocument();
    expect(within(soon).queryByText('Expired')).not.toBeInTheDocument();

    const active = card('Active key');
    expect(active).toHaveAttribute('data-state', 'active');
    expect(active).not.toHaveClass('bg-warning-soft');
    expect(active).not.toHaveClass('bg-destructive-soft');
    expect(within(active).queryByText('Expires Soon')).not.toBeInTheDocument();
    expect(within(active).queryByText('Expired')).not.toBeInTheDocument();
  });

  it('rolls a key: explains the 2-week overlap, then shows the new key once', async () => {
    const { requests } = keysServer();
    const { user } = await openScreen();
    await screen.findByText('No API keys yet');
    await createKey(user, 'CI agent');
    await user.click(
      within(await screen.findByRole('region', { name: 'API key created' })).getByRole('button', {
        name: 'Dismiss',
      }),
    );

    await user.click(within(card('CI agent')).getByRole('button', { name: 'Roll' }));
    const dialog = await screen.findByRole('dialog', { name: 'Roll API Key' });
    const consequences = within(dialog).getByRole('list', { name: 'What rolling does' });
    expect(within(consequences).getByText(/keeps working for 2 weeks/)).toBeInTheDocument();
    // A key keeps one old key at most: rolling again ends the one before at once.
    expect(
      within(consequences).getByText(
        'Only one old key keeps working at a time: if you roll the new key again, the current key stops working at once.',
      ),
    ).toBeInTheDocument();
    expect(
      within(consequences).getByText(
        'If the current key replaced an older key that still works, that older key stops working now.',
      ),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Roll Key' }));

    const rolled = await screen.findByRole('region', { name: 'API key rolled' });
    expect(within(rolled).getByText(ROLLED_KEY)).toBeInTheDocument();
    expect(within(rolled).getByText(/keeps working until Jan 19, 2027/)).toBeInTheDocument();
    expect(requests.some((request) => request.path === '/api/keys/key-new/roll')).toBe(true);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    // Both keys stay revealable this session: the old one still works for two weeks.
    await waitFor(() =>
      expect(screen.getAllByRole('button', { name: 'Show key' })).toHaveLength(2),
    );
    // Two cards of one name: each says which it is.
    const [successor, predecessor] = screen.getAllByRole('article', { name: 'CI agent' });
    expect(within(successor!).getByTestId('roll-note')).toHaveTextContent(
      'Replaces the key rolled on Jan 5, 2027 (eng_ke…6789)',
    );
    expect(within(successor!).queryByText('Expires Soon')).not.toBeInTheDocument();
    expect(within(predecessor!).getByTestId('roll-note')).toHaveTextContent(
      'Replaced on Jan 5, 2027 by eng_ke…3210 · works until Jan 19, 2027',
    );
    expect(within(predecessor!).getByText('Expires Soon')).toBeInTheDocument();
  });

  it('deletes a key after a dialog that lists the consequences', async () => {
    const { requests } = keysServer([apiKey()]);
    const success = vi.spyOn(toast, 'success');
    const { user } = await openScreen();
    await user.click(
      within(await screen.findByRole('article', { name: 'Production agent' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Delete API Key' });
    const consequences = within(dialog).getByRole('list', { name: 'What deleting does' });
    expect(within(consequences).getByText(/stop working immediately/)).toBeInTheDocument();
    expect(
      within(consequences).getByText(
        'If it replaced an older key that still works, that older key stops working too.',
      ),
    ).toBeInTheDocument();
    expect(within(consequences).getByText('This cannot be undone.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete Key' }));
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    expect(requests.some((r) => r.method === 'DELETE' && r.path === '/api/keys/key-1')).toBe(true);
    expect(success).toHaveBeenCalledWith('API key deleted');
  });

  it("shows the server's plan-limit message in a red alert when creating fails", async () => {
    const message =
      'API key limit reached: the Free plan allows 1 API key. Delete a key or upgrade your plan to create more.';
    keysServer([apiKey()], {
      'POST /api/keys': () => ({
        status: 402,
        body: { error: message, code: 'PLAN_LIMIT_REACHED' },
      }),
    });
    const { user } = await openScreen();
    await screen.findByRole('article', { name: 'Production agent' });
    const dialog = await createKey(user, 'Second key');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    expect(banner()).not.toBeInTheDocument();
  });

  it("falls back to 'Failed to create API key' when the server did not explain", async () => {
    keysServer([], { 'POST /api/keys': () => 'network-error' });
    const { user } = await openScreen();
    const dialog = await createKey(user, 'CI agent');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to create API key');
  });

  it("says 'Failed to load API keys' when the list cannot be read", async () => {
    keysServer([], { 'GET /api/keys': () => 'network-error' });
    await openScreen();
    // Network failures are retried twice (1 s, then 2 s) before the screen gives up.
    expect(await screen.findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent(
      'Failed to load API keys',
    );
    expect(screen.queryByText('No API keys yet')).not.toBeInTheDocument();
  });

  it("shows the server's message when loading is refused", async () => {
    keysServer([], {
      'GET /api/keys': () => ({
        status: 429,
        body: { error: 'Monthly operation limit reached', code: 'RATE_LIMITED' },
      }),
    });
    await openScreen();
    expect(await screen.findByRole('alert')).toHaveTextContent('Monthly operation limit reached');
  });

  it('shows the roll and delete failures in their dialogs', async () => {
    keysServer([apiKey()], {
      'POST /api/keys/key-1/roll': () => ({
        status: 409,
        body: {
          error: 'This key has already been rolled; roll its successor instead',
          code: 'CONFLICT',
        },
      }),
      'DELETE /api/keys/key-1': () => ({ status: 500 }),
    });
    const { user } = await openScreen();
    const keyCard = await screen.findByRole('article', { name: 'Production agent' });

    await user.click(within(keyCard).getByRole('button', { name: 'Roll' }));
    const roll = await screen.findByRole('dialog', { name: 'Roll API Key' });
    await user.click(within(roll).getByRole('button', { name: 'Roll Key' }));
    expect(await within(roll).findByRole('alert')).toHaveTextContent(
      'This key has already been rolled; roll its successor instead',
    );
    await user.click(within(roll).getByRole('button', { name: 'Cancel' }));

    await user.click(within(keyCard).getByRole('button', { name: 'Delete' }));
    const remove = await screen.findByRole('dialog', { name: 'Delete API Key' });
    await user.click(within(remove).getByRole('button', { name: 'Delete Key' }));
    expect(await within(remove).findByRole('alert')).toHaveTextContent('Failed to delete API key');
    await user.click(within(remove).getByRole('button', { name: 'Cancel' }));
    expect(card('Production agent')).toBeInTheDocument();
  });

  it('only logs a refused clipboard', async () => {
    keysServer();
    const { user } = await openScreen();
    await screen.findByText('No API keys yet');
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('Denied'));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await createKey(user, 'CI agent');
    const shown = await screen.findByRole('region', { name: 'API key created' });
    await user.click(within(shown).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(logged).toHaveBeenCalled());
    expect(within(shown).queryByRole('button', { name: 'Copied' })).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('tells a viewer they cannot create keys, and does not ask for the list', async () => {
    const { requests } = keysServer([apiKey()], {
      'GET /auth/me': () => ({ status: 200, body: testUserAs('viewer') }),
    });
    await openScreen();
    expect(screen.getByRole('note')).toHaveTextContent(
      "Viewers can't create API keys; your personal key in Settings reads this account",
    );
    expect(screen.queryByRole('button', { name: /Create/ })).toBeNull();
    // How to connect an agent (with the personal key) still shows.
    expect(screen.getByRole('region', { name: 'Connect an agent' })).toBeInTheDocument();
    expect(screen.queryByText('Loading API keys...')).toBeNull();
    expect(screen.queryByText('No API keys yet')).toBeNull();
    expect(screen.queryByRole('article', { name: 'Production agent' })).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests.filter((request) => request.path.startsWith('/api/keys'))).toEqual([]);
  });

  it('lets a member create keys (the list holds only theirs)', async () => {
    const { requests } = keysServer([apiKey()], {
      'GET /auth/me': () => ({ status: 200, body: testUserAs('member') }),
    });
    await openScreen();
    expect(await screen.findByRole('article', { name: 'Production agent' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create API Key' })).toBeInTheDocument();
    expect(screen.queryByRole('note')).toBeNull();
    expect(requests.some((request) => request.path === '/api/keys')).toBe(true);
  });

  it("offers an admin Delete but not Roll on a colleague's key (only its maker rolls it)", async () => {
    keysServer(
      [
        apiKey({ id: 'key-2', name: 'Their agent', createdBy: { id: 'user-2', name: 'Grace' } }),
        apiKey(),
      ],
      { 'GET /auth/me': () => ({ status: 200, body: testUserAs('admin') }) },
    );
    await openScreen();
    const theirs = await screen.findByRole('article', { name: 'Their agent' });
    expect(within(theirs).queryByRole('button', { name: 'Roll' })).toBeNull();
    expect(within(theirs).getByRole('button', { name: 'Delete' })).toBeInTheDocument();
    const mine = card('Production agent');
    expect(within(mine).getByRole('button', { name: 'Roll' })).toBeInTheDocument();
  });

  describe("the plan's key limit, said before the form", () => {
    function plan(maxApiKeys: number, name = 'Free'): Subscription {
      return {
        plan: name.toLowerCase(),
        name,
        status: 'active',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: null,
        features: {
          maxEntities: 1000,
          maxQueries: 15000,
          maxApiKeys,
          maxWebhooks: 0,
          features: [],
        },
        limitsPlan: { id: name.toLowerCase(), name },
        scheduledChange: null,
        provider: 'none',
        planChanges: 'self',
      };
    }

    it('holds Create back with a note when the live keys fill the plan', async () => {
      keysServer([apiKey()], {
        'GET /api/billing/subscription': () => ({ status: 200, body: plan(1) }),
      });
      await openScreen();
      const note = await screen.findByTestId('api-key-limit-note');
      expect(note).toHaveTextContent(
        'Your Free plan allows 1 API key. Delete a key or upgrade your plan to create another.',
      );
      const create = screen.getByRole('button', { name: 'Create API Key' });
      expect(create).toBeDisabled();
      expect(create).toHaveAccessibleDescription(/Your Free plan allows 1 API key/);
    });

    it('does not count expired keys, nor hold back an unlimited plan', async () => {
      keysServer([apiKey({ isExpired: true })], {
        'GET /api/billing/subscription': () => ({ status: 200, body: plan(1) }),
      });
      await openScreen();
      await screen.findByRole('article', { name: 'Production agent' });
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Create API Key' })).toBeEnabled(),
      );
      expect(screen.queryByTestId('api-key-limit-note')).toBeNull();
    });
  });

  describe('Include my key in the Connect an agent panel', () => {
    const snippet = () => screen.getByTestId('agent-config').textContent;

    it('is disabled with a hint until a key is created here, then puts that key in the snippet', async () => {
      keysServer();
      const { user } = await openScreen();
      const include = await screen.findByRole('checkbox', { name: 'Include my key' });
      expect(include).toBeDisabled();
      expect(include).not.toBeChecked();
      expect(include).toHaveAccessibleDescription(
        'Create a key on this page to put it in the snippet.',
      );
      expect(snippet()).toContain('<your-api-key>');

      await user.click(screen.getByRole('button', { name: 'Create Your First API Key' }));
      const dialog = await screen.findByRole('dialog', { name: 'Create API Key' });
      await user.type(within(dialog).getByLabelText('Key Name'), 'CI agent');
      await user.click(within(dialog).getByRole('button', { name: 'Create API Key' }));
      await screen.findByRole('region', { name: 'API key created' });

      // Off at first: the snippet keeps the placeholder until asked.
      expect(include).toBeEnabled();
      expect(include).not.toBeChecked();
      expect(snippet()).toContain('<your-api-key>');
      await user.click(include);
      expect(snippet()).toContain(`Authorization: Bearer ${FULL_KEY}`);
      expect(snippet()).not.toContain('<your-api-key>');
      await user.click(screen.getByRole('radio', { name: 'Cursor' }));
      expect(snippet()).toContain(FULL_KEY);

      // Claude Desktop's file holds no key (mcp-remote signs in through the browser).
      await user.click(screen.getByRole('radio', { name: 'Claude Desktop' }));
      expect(JSON.parse(snippet()!).mcpServers.engram).toEqual({
        command: 'npx',
        args: ['-y', 'mcp-remote', `${window.location.origin}/mcp`],
      });
      expect(include).toBeDisabled();
      expect(include).not.toBeChecked();
      expect(include).toHaveAccessibleDescription(
        'Claude Desktop signs in through your browser: no key goes in its file.',
      );
      await user.click(screen.getByRole('radio', { name: 'VS Code' }));
      expect(include).toBeChecked();
      expect(snippet()).toContain(FULL_KEY);

      // Dismissing the banner forgets the key here too.
      await user.click(screen.getByRole('button', { name: 'Dismiss' }));
      expect(screen.getByRole('checkbox', { name: 'Include my key' })).toBeDisabled();
      expect(snippet()).toContain('<your-api-key>');
    });
  });

  describe("the stdio snippet's folders", () => {
    const stdio = () =>
      JSON.parse(screen.getByTestId('agent-config').textContent!).mcpServers.engram as {
        args: string[];
        env: Record<string, string>;
      };

    it('are filled in when the server gives them (its own machine, no PUBLIC_URL)', async () => {
      keysServer([], {
        'GET /api/connect': () => ({
          status: 200,
          body: { local: { installDir: '/home/ada/engram', dataDir: '/home/ada/engram/data' } },
        }),
      });
      const { user } = await openScreen();
      await user.click(await screen.findByRole('radio', { name: 'stdio' }));
      await waitFor(() =>
        expect(stdio().args[0]).toBe('/home/ada/engram/packages/server/dist/main.js'),
      );
      expect(stdio().env['DATA_DIR']).toBe('/home/ada/engram/data');
      expect(screen.getByTestId('agent-config').textContent).not.toContain('/path/to/engram');
    });

    it('stay placeholders when the server gives none, or the call fails', async () => {
      for (const reply of [{ status: 200, body: { local: null } }, { status: 500 }]) {
        const server = keysServer([], { 'GET /api/connect': () => reply });
        const { user, unmount } = await openScreen();
        await user.click(await screen.findByRole('radio', { name: 'stdio' }));
        await waitFor(() =>
          expect(server.requests.some((request) => request.path === '/api/connect')).toBe(true),
        );
        expect(stdio().args[0]).toBe('/path/to/engram/packages/server/dist/main.js');
        expect(stdio().env['DATA_DIR']).toBe('/path/to/engram/data');
        unmount();
      }
    });
  });
});
