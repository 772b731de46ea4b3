import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

function signedIn(remove: () => { status: number; body?: unknown }) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'DELETE /auth/me': remove,
    'POST /auth/logout': () => ({ status: 401, body: { error: 'gone', code: 'UNAUTHORIZED' } }),
  });
}

async function openSection() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/settings');
  const card = await screen.findByRole('region', { name: 'Delete Account' }, { timeout: 5000 });
  const button = within(card).getByRole('button', { name: 'Delete Account' });
  return { user, app, card, button };
}

describe('Delete account (settings)', { timeout: 20_000 }, () => {
  it('enables the button only with the password and the email typed out', async () => {
    signedIn(() => ({ status: 500 }));
    const { user, card, button } = await openSection();
    expect(within(card).getByRole('button', { name: 'Download Export' })).toBeEnabled();
    expect(button).toBeDisabled();
    await user.type(within(card).getByLabelText('Type your email to confirm'), 'ada@example.co');
    expect(button).toBeDisabled();
    await user.type(within(card).getByLabelText('Type your email to confirm'), 'm');
    expect(button).toBeDisabled();
    await user.type(within(card).getByLabelText('Password'), 'x');
    expect(button).toBeEnabled();
  });

  it('shows a wrong password on its field and stays signed in', async () => {
    const { requests } = signedIn(() => ({
      status: 403,
      body: {
        error: 'Password is incorrect: your account was not deleted',
        code: 'FORBIDDEN',
        details: [
          { field: 'password', message: 'Password is incorrect: your account was not deleted' },
        ],
      },
    }));
    const { user, app, card, button } = await openSection();
    await user.type(within(card).getByLabelText('Password'), 'wrong');
    await user.type(within(card).getByLabelText('Type your email to confirm'), TEST_USER.email);
    await user.click(button);
    expect(await within(card).findByText(/Password is incorrect/)).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'DELETE')?.body).toEqual({ password: 'wrong' });
    expect(localStorage.getItem('auth_token')).toBe('valid-token');
    expect(app.router.state.location.pathname).toBe('/settings');
  });

  it('signs out onto the landing page once the account is deleted', async () => {
    signedIn(() => ({ status: 200, body: { success: true } }));
    const { user, app, card, button } = await openSection();
    await user.type(within(card).getByLabelText('Password'), 'Password123');
    await user.type(within(card).getByLabelText('Type your email to confirm'), TEST_USER.email);
    await user.click(button);
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/'));
    await waitFor(() => expect(localStorage.getItem('auth_token')).toBeNull());
  });
});
