import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

const CLAUDE = {
  id: 'grant-1',
  client: {
    id: 'client-1',
    name: 'Claude',
    logoUri: 'https://claude.ai/logo.png',
    clientUri: 'https://claude.ai/',
  },
  scopes: ['memory:read', 'memory:write'],
  createdAt: '2026-01-05T10:00:00Z',
  lastUsedAt: null,
};
const CURSOR = {
  id: 'grant-2',
  client: { id: 'client-2', name: 'Cursor', logoUri: null, clientUri: null },
  scopes: ['memory:read'],
  createdAt: '2026-01-06T10:00:00Z',
  lastUsedAt: new Date(Date.now() - 3 * 24 * 60 * 60 * 1000).toISOString(),
};

function signedIn(grants: () => unknown[], revoke?: () => { status: number; body?: unknown }) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/oauth/grants': () => ({ status: 200, body: { grants: grants() } }),
    ...(revoke ? { 'DELETE /api/oauth/grants/grant-1': revoke } : {}),
  });
}

async function openCard() {
  const user = userEvent.setup({ delay: null });
  renderApp('/settings');
  const card = await screen.findByRole('region', { name: 'Connected apps' }, { timeout: 5000 });
  return { user, card };
}

describe('Connected apps (settings)', { timeout: 20_000 }, () => {
  it('lists each app with what it may do and when it was connected and used', async () => {
    signedIn(() => [CLAUDE, CURSOR]);
    const { card } = await openCard();
    const claude = await within(card).findByRole('listitem', { name: 'Claude' });
    expect(within(claude).getByText('Read')).toBeInTheDocument();
    expect(within(claude).getByText('Write')).toBeInTheDocument();
    expect(within(claude).getByRole('link', { name: 'claude.ai' })).toHaveAttribute(
      'href',
      'https://claude.ai/',
    );
    expect(claude).toHaveTextContent('Connected Jan 5, 2026 · Last used never');
    expect(claude.querySelector('img')).toHaveAttribute('referrerpolicy', 'no-referrer');
    const cursor = within(card).getByRole('listitem', { name: 'Cursor' });
    expect(within(cursor).queryByText('Write')).not.toBeInTheDocument();
    expect(cursor).toHaveTextContent('Connected Jan 6, 2026 · Last used 3 days ago');
  });

  it('revokes after confirming, says so and refreshes the list', async () => {
    let grants = [CLAUDE, CURSOR];
    const { requests } = signedIn(
      () => grants,
      () => {
        grants = [CURSOR];
        return { status: 200, body: { success: true } };
      },
    );
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openCard();
    const claude = await within(card).findByRole('listitem', { name: 'Claude' });

    await user.click(within(claude).getByRole('button', { name: 'Revoke' }));
    let dialog = await screen.findByRole('dialog', { name: 'Revoke access' });
    expect(dialog).toHaveTextContent(
      'Revoke access for Claude? It will be signed out of Engram at once.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(requests.some((request) => request.method === 'DELETE')).toBe(false);

    await user.click(within(claude).getByRole('button', { name: 'Revoke' }));
    dialog = await screen.findByRole('dialog', { name: 'Revoke access' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(within(card).queryByRole('listitem', { name: 'Claude' })).not.toBeInTheDocument(),
    );
    expect(within(card).getByRole('listitem', { name: 'Cursor' })).toBeInTheDocument();
    expect(success).toHaveBeenCalledWith('Access revoked');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requests.find((request) => request.method === 'DELETE')?.path).toBe(
      '/api/oauth/grants/grant-1',
    );
  });

  it('keeps the app and says why when revoking fails', async () => {
    signedIn(
      () => [CLAUDE],
      () => ({ status: 500, body: { error: 'Something broke', code: 'INTERNAL_ERROR' } }),
    );
    const failure = vi.spyOn(toast, 'error');
    const { user, card } = await openCard();
    const claude = await within(card).findByRole('listitem', { name: 'Claude' });
    await user.click(within(claude).getByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke access' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(failure).toHaveBeenCalledWith('Something broke'));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    // The dialog hides the page from the accessibility tree while open.
    expect(within(card).getByRole('listitem', { name: 'Claude', hidden: true })).toBeVisible();
  });

  it('says how apps get here when none is connected', async () => {
    signedIn(() => []);
    const { card } = await openCard();
    expect(await within(card).findByText('No apps connected')).toBeInTheDocument();
    expect(
      within(card).getByText(
        "Apps you connect to Engram's MCP endpoint (Claude, ChatGPT, VS Code, Cursor) appear here.",
      ),
    ).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'How to connect an app' })).toHaveAttribute(
      'href',
      '/dashboard#connect',
    );
  });

  it('says the list failed to load, with a retry', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({ 'GET /auth/me': () => ({ status: 200, body: TEST_USER }) });
    const { card } = await openCard();
    const alert = await within(card).findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load connected apps');
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
