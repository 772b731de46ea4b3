import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

function signedIn() {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({ 'GET /auth/me': () => ({ status: 200, body: TEST_USER }) });
}

describe('route guards', () => {
  it('sends visitors from a protected path to /login', async () => {
    fakeServer({});
    const { router } = renderApp('/entities');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('sends visitors from an unknown path to the landing page', async () => {
    fakeServer({});
    const { router } = renderApp('/no-such-page');
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('sends signed-in users from an unknown path to /dashboard', async () => {
    signedIn();
    const { router } = renderApp('/no-such-page');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('sends signed-in users away from /login and /signup', async () => {
    signedIn();
    const login = renderApp('/login');
    await waitFor(() => expect(login.router.state.location.pathname).toBe('/dashboard'));
    login.unmount();
    const signup = renderApp('/signup?plan=pro&billing=monthly');
    await waitFor(() => expect(signup.router.state.location.pathname).toBe('/dashboard'));
  });

  it('shows the loading screen while the stored session is checked', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    let answer: (response: Response) => void = () => undefined;
    const fetchMock = vi.fn(() => new Promise<Response>((resolve) => (answer = resolve)));
    vi.stubGlobal('fetch', fetchMock);
    const { router } = renderApp('/dashboard');
    await waitFor(() => expect(fetchMock).toHaveBeenCalledOnce());
    expect(screen.getByText('Loading…')).toBeInTheDocument();
    answer(new Response(JSON.stringify(TEST_USER), { status: 200 }));
    // The first visit also loads the signed-in app's code, hence the longer wait.
    expect(
      await screen.findByText('Knowledge Graph Dashboard', undefined, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('drops a stale stored token silently on a public page', async () => {
    localStorage.setItem('auth_token', 'revoked-token');
    fakeServer({
      'GET /auth/me': () => ({
        status: 401,
        body: { error: 'Unauthorized', code: 'UNAUTHORIZED' },
      }),
    });
    const { router } = renderApp('/pricing');
    await waitFor(() => expect(localStorage.getItem('auth_token')).toBeNull());
    expect(router.state.location.pathname).toBe('/pricing');
    const header = screen.getByRole('banner');
    expect(await within(header).findByRole('link', { name: 'Sign In' })).toBeVisible();
  });

  it('clears the session and goes to /login when any call answers 401', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'PUT /auth/me': () => ({
        status: 401,
        body: { error: 'Session expired', code: 'UNAUTHORIZED' },
      }),
    });
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/settings');
    const firstName = await screen.findByLabelText('First Name');
    await user.type(firstName, 'x');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(localStorage.getItem('auth_token')).toBeNull();
  });
});
