import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { fakeSpace, fakeSpaces } from '@/test/fake-spaces';
import { renderApp } from '@/test/render-app';

const SPACES = [
  fakeSpace('default', 'Default'),
  fakeSpace('alpha', 'Alpha'),
  fakeSpace('beta', 'Beta'),
];

function keysServer() {
  localStorage.setItem('auth_token', 'valid-token');
  let keys: unknown[] = [];
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    ...fakeSpaces(SPACES).handlers,
    'GET /api/keys': () => ({ status: 200, body: { apiKeys: keys } }),
    'POST /api/keys': (request: FakeRequest) => {
      const { name, permissions } = request.body as { name: string; permissions: string[] };
      const created = {
        id: `key-${keys.length + 1}`,
        name,
        keyPreview: 'eng_ke…6789',
        permissions,
        expiresAt: null,
        isExpired: false,
        isExpiringSoon: false,
        lastUsedAt: null,
        createdAt: '2027-01-05T10:00:00.000Z',
        createdBy: { id: 'user-1', name: 'Ada Lovelace' },
        usage: { totalRequests: 0, activeDays: 0 },
        replacedById: null,
        replacesId: null,
      };
      keys = [created, ...keys];
      return {
        status: 201,
        body: { ...created, apiKey: 'eng_key_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' },
      };
    },
  });
}

async function openForm() {
  const user = userEvent.setup({ delay: null });
  renderApp('/api-keys');
  await user.click(
    await screen.findByRole('button', { name: 'Create API Key' }, { timeout: 5000 }),
  );
  const dialog = await screen.findByRole('dialog', { name: 'Create API Key' });
  return { user, dialog };
}

const posted = (requests: FakeRequest[]) =>
  requests.filter((r) => r.method === 'POST' && r.path === '/api/keys').at(-1)?.body;

describe('the API key scope picker', { timeout: 20_000 }, () => {
  it('starts at full access and sends the empty permissions list', async () => {
    const { requests } = keysServer();
    const { user, dialog } = await openForm();
    const access = within(dialog).getByRole('group', { name: 'Access' });
    expect(within(access).getByRole('radio', { name: 'All spaces' })).toBeChecked();
    expect(within(dialog).getByRole('radio', { name: 'Read and write' })).toBeChecked();
    await user.type(within(dialog).getByLabelText('Key Name'), 'Everything');
    await user.click(within(dialog).getByRole('button', { name: 'Create API Key' }));
    await waitFor(() => expect(posted(requests)).toEqual({ name: 'Everything', permissions: [] }));
    const card = await screen.findByRole('article', { name: 'Everything' });
    expect(card).toHaveTextContent('Access: Full access');
  });

  it('reads every space when read only is chosen', async () => {
    const { requests } = keysServer();
    const { user, dialog } = await openForm();
    await user.type(within(dialog).getByLabelText('Key Name'), 'Reader');
    await user.click(within(dialog).getByRole('radio', { name: 'Read only' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create API Key' }));
    await waitFor(() =>
      expect(posted(requests)).toEqual({ name: 'Reader', permissions: ['spaces:*:read'] }),
    );
    expect(await screen.findByRole('article', { name: 'Reader' })).toHaveTextContent(
      'Access: All spaces · read only',
    );
  });

  it('picks spaces by slug from a server search and grants them only', async () => {
    const { requests } = keysServer();
    const { user, dialog } = await openForm();
    await user.type(within(dialog).getByLabelText('Key Name'), 'Alpha reader');
    await user.click(within(dialog).getByRole('radio', { name: 'Chosen spaces' }));

    // Nothing picked yet: the form says so instead of sending.
    await user.click(within(dialog).getByRole('button', { name: 'Create API Key' }));
    expect(await within(dialog).findByText('Choose at least one space')).toBeVisible();
    expect(posted(requests)).toBeUndefined();

    await user.type(within(dialog).getByRole('searchbox', { name: 'Search spaces' }), 'al');
    await waitFor(() =>
      expect(requests.some((r) => r.path === '/api/spaces' && r.query.get('query') === 'al')).toBe(
        true,
      ),
    );
    const list = within(dialog).getByRole('list', { name: 'Spaces' });
    await waitFor(() => expect(within(list).getAllByRole('checkbox')).toHaveLength(1));
    await user.click(within(list).getByRole('checkbox', { name: /alpha/ }));
    expect(within(dialog).getByRole('list', { name: 'Chosen spaces' })).toHaveTextContent('alpha');
    expect(within(dialog).queryByText('Choose at least one space')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('radio', { name: 'Read only' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create API Key' }));

    await waitFor(() =>
      expect(posted(requests)).toEqual({
        name: 'Alpha reader',
        permissions: ['space:alpha:read'],
      }),
    );
    expect(await screen.findByRole('article', { name: 'Alpha reader' })).toHaveTextContent(
      'Access: alpha · read only',
    );
  });
});
