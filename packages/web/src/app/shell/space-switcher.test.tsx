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

const emptyEntities = { entities: [], total: 0, nextCursor: null };

function signedIn(
  spaces = SPACES,
  extra: Record<string, (request: FakeRequest) => { status: number; body?: unknown }> = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  const fake = fakeSpaces(spaces);
  const server = fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/entities': () => ({ status: 200, body: emptyEntities }),
    'GET /api/entities/types': () => ({ status: 200, body: { types: [], nextCursor: null } }),
    ...fake.handlers,
    ...extra,
  });
  return server;
}

const spaceOf = (request: FakeRequest) => request.headers.get('X-Engram-Space');
const lastTo = (requests: FakeRequest[], path: string) =>
  requests.filter((request) => request.path === path).at(-1);

async function switcher(name: string) {
  return screen.findByRole('button', { name: `Memory space: ${name}` }, { timeout: 5000 });
}

describe('the space switcher (shell header)', { timeout: 20_000 }, () => {
  it('shows the space named in the address and sends it with every graph call', async () => {
    const { requests } = signedIn();
    renderApp('/entities?space=alpha');
    expect(await switcher('Alpha')).toBeVisible();
    await waitFor(() => expect(lastTo(requests, '/api/entities')).toBeDefined());
    expect(spaceOf(lastTo(requests, '/api/entities')!)).toBe('alpha');
    expect(spaceOf(lastTo(requests, '/api/entities/types')!)).toBe('alpha');
    // The spaces' own calls are the account's, in no space.
    expect(spaceOf(lastTo(requests, '/api/spaces/alpha')!)).toBeNull();
  });

  it('without ?space= shows the default space', async () => {
    const { requests } = signedIn();
    renderApp('/entities');
    expect(await switcher('Default')).toBeVisible();
    await waitFor(() => expect(lastTo(requests, '/api/entities')).toBeDefined());
    expect(spaceOf(lastTo(requests, '/api/entities')!)).toBe('default');
  });

  it('filters on the server as the person types and switches on Enter, keeping the screen', async () => {
    const { requests } = signedIn();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities?space=alpha&q=ada');
    await user.click(await switcher('Alpha'));

    const filter = await screen.findByRole('combobox', { name: 'Filter spaces' });
    const list = screen.getByRole('listbox', { name: 'Spaces' });
    expect(await within(list).findByRole('option', { name: /Alpha/ })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(within(list).queryByRole('option', { name: 'All spaces' })).not.toBeInTheDocument();

    await user.type(filter, 'BE');
    await waitFor(() =>
      expect(requests.some((r) => r.path === '/api/spaces' && r.query.get('query') === 'BE')).toBe(
        true,
      ),
    );
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(1));
    await user.keyboard('{Enter}');

    await waitFor(() => expect(router.state.location.search).toBe('?space=beta&q=ada'));
    expect(router.state.location.pathname).toBe('/entities');
    expect(await switcher('Beta')).toBeVisible();
    await waitFor(() => expect(spaceOf(lastTo(requests, '/api/entities')!)).toBe('beta'));
  });

  it('reads spaces a page at a time, never the whole list', async () => {
    const many = [
      fakeSpace('default', 'Default'),
      ...Array.from({ length: 60 }, (_, i) =>
        fakeSpace(`s${String(i).padStart(2, '0')}`, `S ${i}`),
      ),
    ];
    const { requests } = signedIn(many);
    const user = userEvent.setup({ delay: null });
    renderApp('/entities');
    await user.click(await switcher('Default'));
    const list = await screen.findByRole('listbox', { name: 'Spaces' });
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(50));
    expect(requests.find((r) => r.path === '/api/spaces')?.query.get('limit')).toBe('50');
    await user.click(screen.getByRole('button', { name: 'Load more spaces' }));
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(61));
  });

  it('keeps the space when moving between screens', async () => {
    signedIn();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities?space=alpha');
    await switcher('Alpha');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Graph View' })).toHaveAttribute(
      'href',
      '/graph?space=alpha',
    );
    // A screen's own link names no space: the shell carries it over.
    await router.navigate('/search');
    await waitFor(() => expect(router.state.location.search).toBe('?space=alpha'));
    expect(router.state.location.pathname).toBe('/search');
    await user.click(screen.getByRole('button', { name: /Account menu/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Settings' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    expect(router.state.location.search).toBe('?space=alpha');
  });

  it('creates a space from "New space…" and switches to it', async () => {
    const { requests } = signedIn();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities');
    await user.click(await switcher('Default'));
    await user.click(await screen.findByRole('button', { name: 'New space…' }));

    const dialog = await screen.findByRole('dialog', { name: 'New space' });
    const create = within(dialog).getByRole('button', { name: 'Create space' });
    expect(create).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Name'), 'Project Gamma');
    await user.click(create);

    await waitFor(() => expect(router.state.location.search).toBe('?space=project-gamma'));
    expect(lastTo(requests, '/api/spaces')?.body).toEqual({ name: 'Project Gamma' });
    expect(screen.queryByRole('dialog', { name: 'New space' })).not.toBeInTheDocument();
  });

  it('shows the server’s reason when a space cannot be made', async () => {
    signedIn(SPACES, {
      'POST /api/spaces': () => ({
        status: 402,
        body: {
          error: 'Your plan allows 3 memory spaces. Upgrade to add more.',
          code: 'PLAN_LIMIT',
        },
      }),
    });
    const user = userEvent.setup({ delay: null });
    renderApp('/entities');
    await user.click(await switcher('Default'));
    await user.click(await screen.findByRole('button', { name: 'New space…' }));
    const dialog = await screen.findByRole('dialog', { name: 'New space' });
    await user.type(within(dialog).getByLabelText('Name'), 'Delta');
    await user.click(within(dialog).getByRole('button', { name: 'Create space' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Your plan allows 3 memory spaces. Upgrade to add more.',
    );
  });

  it('offers "All spaces" on the dashboard, whose numbers are then the account’s', async () => {
    const { requests } = signedIn(SPACES, {
      'GET /api/analytics': () => ({ status: 500, body: { error: 'x', code: 'INTERNAL' } }),
    });
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/dashboard?space=alpha');
    await user.click(await switcher('Alpha'));
    await waitFor(() => expect(lastTo(requests, '/api/analytics')).toBeDefined());
    expect(spaceOf(lastTo(requests, '/api/analytics')!)).toBe('alpha');

    const list = await screen.findByRole('listbox', { name: 'Spaces' });
    await user.click(within(list).getByRole('option', { name: 'All spaces' }));
    await waitFor(() => expect(router.state.location.search).toBe('?space=*'));
    expect(await switcher('All spaces')).toBeVisible();
    await waitFor(() => expect(spaceOf(lastTo(requests, '/api/analytics')!)).toBeNull());
  });
});

describe('the space in the address', { timeout: 20_000 }, () => {
  it('back and forward show the space each address names', async () => {
    signedIn();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities');
    await user.click(await switcher('Default'));
    const list = await screen.findByRole('listbox', { name: 'Spaces' });
    await user.click(await within(list).findByRole('option', { name: /Alpha/ }));
    await waitFor(() => expect(router.state.location.search).toBe('?space=alpha'));
    expect(await switcher('Alpha')).toBeVisible();

    await router.navigate(-1);
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(await switcher('Default')).toBeVisible();
  });

  it('from one entity’s page, another space opens its list', async () => {
    signedIn(SPACES, {
      'GET /api/entities/entity-1': () => ({
        status: 404,
        body: { error: 'Entity not found', code: 'NOT_FOUND' },
      }),
    });
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities/entity-1?space=alpha');
    await user.click(await switcher('Alpha'));
    const list = await screen.findByRole('listbox', { name: 'Spaces' });
    await user.click(await within(list).findByRole('option', { name: /Beta/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities'));
    expect(router.state.location.search).toBe('?space=beta');
  });
});
