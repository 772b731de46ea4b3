import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { browser } from '../browser';

const UID = 'uid-123';
const PATH = `/api/oauth/interactions/${UID}`;

const INTERACTION = {
  client: {
    id: 'client-1',
    name: 'Claude',
    logoUri: 'https://claude.ai/logo.png',
    clientUri: 'https://claude.ai/',
    redirectHost: 'claude.ai',
  },
  scopes: [
    {
      scope: 'memory:read',
      description: 'Read your memory: entities, relations, observations and search',
    },
    {
      scope: 'memory:write',
      description: 'Add, change and delete entities, relations and observations',
    },
  ],
  resource: 'https://engram.example/mcp',
};

type Reply = { status: number; body?: unknown };

function signedIn(handlers: {
  get?: () => Reply;
  post?: (request: FakeRequest) => Reply;
  me?: unknown;
}) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: handlers.me ?? TEST_USER }),
    [`GET ${PATH}`]: handlers.get ?? (() => ({ status: 200, body: INTERACTION })),
    ...(handlers.post ? { [`POST ${PATH}`]: handlers.post } : {}),
  });
}

async function openConsent(path = `/oauth/consent?uid=${UID}`) {
  const user = userEvent.setup({ delay: null });
  const view = renderApp(path);
  return { user, ...view };
}

describe('OAuth consent screen', { timeout: 20_000 }, () => {
  it('shows who asks, where it goes back to, the account and what it may do', async () => {
    signedIn({});
    await openConsent();
    expect(
      await screen.findByRole('heading', { name: 'Connect Claude to Engram' }, { timeout: 5000 }),
    ).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Connect Claude to Engram'));
    expect(screen.getByText(/Engram has not checked them/)).toBeInTheDocument();
    expect(screen.getByTestId('redirect-host')).toHaveTextContent('claude.ai');
    expect(screen.getByText(TEST_USER.email)).toBeInTheDocument();
    // Connected at /mcp: the token acts in the default space alone.
    expect(screen.getByText('The default space')).toBeInTheDocument();
    expect(screen.queryByText('Every space')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'claude.ai' })).toHaveAttribute(
      'href',
      'https://claude.ai/',
    );
    const scopes = within(screen.getByRole('region', { name: 'Claude will be able to' }));
    expect(scopes.getAllByRole('listitem').map((item) => item.textContent)).toEqual(
      INTERACTION.scopes.map((scope) => scope.description),
    );
    const logo = document.querySelector('img');
    expect(logo).toHaveAttribute('src', 'https://claude.ai/logo.png');
    expect(logo).toHaveAttribute('referrerpolicy', 'no-referrer');
    // Outside the app shell: no navigation.
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
  });

  it('names the account the app will reach when the person belongs to several', async () => {
    signedIn({ me: testUserAs('member') });
    await openConsent();
    await screen.findByRole('heading', { name: 'Connect Claude to Engram' });
    expect(screen.getByText('Acme')).toBeInTheDocument();
    expect(screen.getByText(`· as ${TEST_USER.email}`)).toBeInTheDocument();
  });

  it('posts allow, keeps the buttons off and follows the server to the app', async () => {
    const { fetchMock } = signedIn({});
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const { user } = await openConsent();
    await screen.findByRole('heading', { name: 'Connect Claude to Engram' }, { timeout: 5000 });

    // The answer is held back, to see the buttons while it is on its way.
    let sent: unknown;
    let answer: (response: Response) => void = () => undefined;
    const server = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation((input, init) => {
      if (init?.method !== 'POST') return server(input, init);
      sent = JSON.parse(String(init.body));
      return new Promise<Response>((resolve) => (answer = resolve));
    });

    await user.click(screen.getByRole('button', { name: 'Allow' }));
    expect(sent).toEqual({ decision: 'allow' });
    expect(screen.getByRole('button', { name: 'Allow' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Deny' })).toBeDisabled();
    answer(
      new Response(JSON.stringify({ redirectTo: 'https://engram.example/oauth/auth/uid-123' })),
    );
    await waitFor(() =>
      expect(assign).toHaveBeenCalledWith('https://engram.example/oauth/auth/uid-123'),
    );
    expect(screen.getByRole('button', { name: 'Allow' })).toBeDisabled();
  });

  it('posts deny and follows the server back', async () => {
    const { requests } = signedIn({
      post: () => ({ status: 200, body: { redirectTo: '/oauth/auth/uid-123' } }),
    });
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const { user } = await openConsent();
    await user.click(await screen.findByRole('button', { name: 'Deny' }, { timeout: 5000 }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/oauth/auth/uid-123'));
    const post = requests.find((request) => request.method === 'POST');
    expect(post?.path).toBe(PATH);
    expect(post?.body).toEqual({ decision: 'deny' });
  });

  it('says an unknown or expired request is over, with no buttons', async () => {
    signedIn({
      get: () => ({
        status: 404,
        body: { error: 'Authorization request not found or expired', code: 'NOT_FOUND' },
      }),
    });
    await openConsent();
    expect(
      await screen.findByText(
        'This sign-in request has expired or is not valid. Go back to your app and connect again.',
        undefined,
        { timeout: 5000 },
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Allow' })).not.toBeInTheDocument();
  });

  it('says the same without asking when the address has no request id', async () => {
    const { requests } = signedIn({});
    await openConsent('/oauth/consent');
    expect(
      await screen.findByText(/This sign-in request has expired/, undefined, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(requests.some((request) => request.path.startsWith('/api/oauth'))).toBe(false);
  });

  it("shows the server's message when loading fails otherwise, and when answering fails", async () => {
    let loads = 0;
    signedIn({
      get: () =>
        ++loads === 1
          ? { status: 403, body: { error: 'Access denied', code: 'FORBIDDEN' } }
          : { status: 200, body: INTERACTION },
      post: () => ({ status: 400, body: { error: 'Consent already given', code: 'BAD_REQUEST' } }),
    });
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const { user } = await openConsent();
    const alert = await screen.findByRole('alert', undefined, { timeout: 5000 });
    expect(alert).toHaveTextContent('Access denied');
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await user.click(await screen.findByRole('button', { name: 'Allow' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Consent already given');
    expect(screen.getByRole('button', { name: 'Allow' })).toBeEnabled();
    expect(assign).not.toHaveBeenCalled();
  });

  it('sends a signed-out visitor to sign in and back to the same request', async () => {
    fakeServer({
      'POST /auth/login': () => ({ status: 200, body: { token: 'valid-token', user: TEST_USER } }),
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      [`GET ${PATH}`]: () => ({ status: 200, body: INTERACTION }),
    });
    const { user, router } = await openConsent();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    await user.type(
      await screen.findByLabelText('Email Address', undefined, { timeout: 5000 }),
      TEST_USER.email,
    );
    await user.type(screen.getByLabelText('Password'), 'Engines1843');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(
      await screen.findByRole('heading', { name: 'Connect Claude to Engram' }, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/oauth/consent');
    expect(router.state.location.search).toBe(`?uid=${UID}`);
  });
});
