import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

const PERSONAL_KEY = 'eng_key_personalAbCdEfGhIjKlMnOp1234';
const NEW_KEY = 'eng_key_regeneratedZyXwVuTsRqPo9876';

function signedIn(regenerate: () => { status: number; body?: unknown }) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: { ...TEST_USER, apiKey: PERSONAL_KEY } }),
    'POST /auth/me/api-key': regenerate,
  });
}

async function openSettings() {
  const user = userEvent.setup({ delay: null });
  renderApp('/settings');
  const card = await screen.findByRole('region', { name: 'Personal API Key' }, { timeout: 5000 });
  return { user, card };
}

describe('Personal API key (settings)', { timeout: 20_000 }, () => {
  it('shows the key masked, reveals it and copies it', async () => {
    signedIn(() => ({ status: 500 }));
    const { user, card } = await openSettings();
    const value = within(card).getByTestId('personal-api-key');
    expect(value).toHaveTextContent('eng_ke…1234');
    await user.click(within(card).getByRole('button', { name: 'Show key' }));
    expect(value).toHaveTextContent(PERSONAL_KEY);
    await user.click(within(card).getByRole('button', { name: 'Hide key' }));
    expect(value).toHaveTextContent('eng_ke…1234');
    await user.click(within(card).getByRole('button', { name: 'Copy key' }));
    expect(await navigator.clipboard.readText()).toBe(PERSONAL_KEY);
    expect(within(card).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('regenerates after confirming and puts the new key in the session', async () => {
    const { requests } = signedIn(() => ({ status: 200, body: { apiKey: NEW_KEY } }));
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openSettings();

    await user.click(within(card).getByRole('button', { name: 'Regenerate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate personal API key?' });
    expect(within(dialog).getByText(/stops working immediately/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(requests.some((request) => request.path === '/auth/me/api-key')).toBe(false);

    await user.click(within(card).getByRole('button', { name: 'Regenerate' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Regenerate Key' }),
    );
    await waitFor(() =>
      expect(within(card).getByTestId('personal-api-key')).toHaveTextContent('eng_ke…9876'),
    );
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(success).toHaveBeenCalledWith('Personal API key regenerated');
    const call = requests.find((request) => request.path === '/auth/me/api-key');
    expect(call?.method).toBe('POST');
    // The session was updated in place, not refetched.
    expect(requests.filter((request) => request.path === '/auth/me')).toHaveLength(1);
  });

  it('keeps the old key and says so when regenerating fails', async () => {
    signedIn(() => ({ status: 500, body: { error: 'Something broke', code: 'INTERNAL_ERROR' } }));
    const failure = vi.spyOn(toast, 'error');
    const { user, card } = await openSettings();
    await user.click(within(card).getByRole('button', { name: 'Regenerate' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Regenerate Key' }),
    );
    await waitFor(() => expect(failure).toHaveBeenCalledWith('Something broke'));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    expect(within(card).getByTestId('personal-api-key')).toHaveTextContent('eng_ke…1234');
  });
});
