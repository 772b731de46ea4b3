import type { InvitationPreview } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { readAccountId, readPendingInvitation } from '@/lib/account';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { fakeSpace, fakeSpaces } from '@/test/fake-spaces';
import { renderApp } from '@/test/render-app';

const TOKEN = 'tok_secret_123';
const PATH = `/invitations/accept#token=${TOKEN}`;

const PREVIEW: InvitationPreview = {
  accountName: 'Acme Research',
  email: TEST_USER.email,
  role: 'member',
  invitedBy: 'Grace Hopper',
  expiresAt: '2099-01-12T10:00:00.000Z',
};

type Reply = { status: number; body?: unknown };
type Handlers = Record<string, (request: FakeRequest) => Reply>;

/** The server for an invitation link, and what a session there reads. */
function invitationServer(overrides: Handlers = {}) {
  const spaces = fakeSpaces([fakeSpace('default', 'Default')]);
  return fakeServer({
    'POST /api/invitations/preview': ({ body }) =>
      (body as { token: string }).token === TOKEN
        ? { status: 200, body: PREVIEW }
        : { status: 404, body: { error: 'Invitation not found', code: 'NOT_FOUND' } },
    'POST /api/invitations/accept': () => ({
      status: 200,
      body: { accountId: 'acme', role: 'member' },
    }),
    'POST /auth/login': () => ({ status: 200, body: { token: 'valid-token', user: TEST_USER } }),
    'GET /auth/me': ({ headers }) => ({
      status: 200,
      body:
        headers.get('X-Engram-Account') === 'acme'
          ? {
              ...TEST_USER,
              apiKey: 'eng_key_in_acme',
              accounts: [
                ...TEST_USER.accounts,
                { id: 'acme', name: 'Acme Research', role: 'member' },
              ],
              currentAccountId: 'acme',
            }
          : TEST_USER,
    }),
    ...spaces.handlers,
    ...overrides,
  });
}

const signedIn = () => localStorage.setItem('auth_token', 'valid-token');

async function heading() {
  return screen.findByRole('heading', { name: 'Join Acme Research' }, { timeout: 5000 });
}

describe('the invitation page', { timeout: 20_000 }, () => {
  it('shows what the link offers: the account, the role, who invited and until when', async () => {
    const { requests } = invitationServer();
    renderApp(PATH);
    await heading();
    const terms = screen.getByTestId('invitation-terms');
    expect(terms).toHaveTextContent('AccountAcme Research');
    expect(terms).toHaveTextContent('RoleMember');
    expect(terms).toHaveTextContent('Invited byGrace Hopper');
    expect(terms).toHaveTextContent('ExpiresJan 12, 2099');
    expect(requests.find((r) => r.path === '/api/invitations/preview')?.body).toEqual({
      token: TOKEN,
    });
    // The token is kept for this tab while the person signs in.
    expect(readPendingInvitation()).toBe(TOKEN);
  });

  it('signed in, accepts, switches to the account and opens the dashboard', async () => {
    signedIn();
    const { requests } = invitationServer();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp(PATH);
    await heading();
    await user.click(await screen.findByRole('button', { name: 'Accept invitation' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(requests.find((r) => r.path === '/api/invitations/accept')?.body).toEqual({
      token: TOKEN,
    });
    expect(readAccountId()).toBe('acme');
    expect(readPendingInvitation()).toBeNull();
    // The person is read again in the account joined; every call then names it.
    await waitFor(() =>
      expect(
        requests.some((r) => r.path === '/auth/me' && r.headers.get('X-Engram-Account') === 'acme'),
      ).toBe(true),
    );
    expect(
      await screen.findByRole(
        'button',
        { name: 'Account: Acme Research (Member)' },
        { timeout: 5000 },
      ),
    ).toBeVisible();
  });

  it('signed out, offers sign-in and comes back here to accept', async () => {
    invitationServer();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp(PATH);
    await heading();
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute(
      'href',
      '/signup',
    );
    await user.click(screen.getByRole('link', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    // A detour through sign-up keeps the way back.
    await user.click(await screen.findByRole('link', { name: 'Sign up' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/signup'));
    await user.click(await screen.findByRole('link', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));

    await user.type(await screen.findByLabelText('Email Address'), TEST_USER.email);
    await user.type(screen.getByLabelText('Password'), 'Engines1843');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/invitations/accept'));
    expect(router.state.location.hash).toBe(`#token=${TOKEN}`);
    expect(await screen.findByRole('button', { name: 'Accept invitation' })).toBeEnabled();
  });

  it('after signing in elsewhere in the tab, goes back to the invitation kept for it', async () => {
    invitationServer();
    sessionStorage.setItem('engram_pending_invitation', TOKEN);
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/login');
    await user.type(
      await screen.findByLabelText('Email Address', undefined, { timeout: 5000 }),
      TEST_USER.email,
    );
    await user.type(screen.getByLabelText('Password'), 'Engines1843');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/invitations/accept'));
    expect(await heading()).toBeVisible();
  });

  it('signed in as someone else, says whom the invitation is for instead of Accept', async () => {
    signedIn();
    invitationServer({
      'GET /auth/me': () => ({ status: 200, body: { ...TEST_USER, email: 'other@example.com' } }),
    });
    renderApp(PATH);
    await heading();
    expect(
      await screen.findByText(/You are signed in as/, undefined, { timeout: 5000 }),
    ).toHaveTextContent(
      'You are signed in as other@example.com. This invitation is for ada@example.com: sign in with that email to accept it.',
    );
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in as ada@example.com' })).toBeVisible();
  });

  it('shows the server’s refusal of an accept', async () => {
    signedIn();
    invitationServer({
      'POST /api/invitations/accept': () => ({
        status: 403,
        body: { error: 'This invitation is for another email address', code: 'FORBIDDEN' },
      }),
    });
    const user = userEvent.setup({ delay: null });
    renderApp(PATH);
    await user.click(
      await screen.findByRole('button', { name: 'Accept invitation' }, { timeout: 5000 }),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This invitation is for another email address',
    );
    expect(readAccountId()).toBeNull();
  });

  it('says clearly when the link is no longer valid, or incomplete', async () => {
    invitationServer();
    const first = renderApp('/invitations/accept#token=used-or-expired');
    expect(
      await screen.findByRole('heading', { name: 'Invitation not valid' }, { timeout: 5000 }),
    ).toBeVisible();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'This invitation is no longer valid: it has expired, was already used or was revoked.',
    );
    expect(readPendingInvitation()).toBeNull();
    first.unmount();

    renderApp('/invitations/accept');
    expect(await screen.findByRole('heading', { name: 'Invitation not valid' })).toBeVisible();
    expect(
      within(screen.getByRole('main')).getByRole('link', { name: 'Go to the home page' }),
    ).toBeVisible();
  });
});
