import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs } from '@/test/fake-server';
import { fakeSpace, fakeSpaces } from '@/test/fake-spaces';
import { renderApp } from '@/test/render-app';

const SPACES = [
  fakeSpace('default', 'Default', { counts: { entities: 12, relations: 3, observations: 40 } }),
  fakeSpace('alpha', 'Project Alpha', { counts: { entities: 1, relations: 0, observations: 2 } }),
];

function signedIn(user: object = TEST_USER) {
  localStorage.setItem('auth_token', 'valid-token');
  const spaces = fakeSpaces(SPACES);
  const server = fakeServer({
    'GET /auth/me': () => ({ status: 200, body: user }),
    ...spaces.handlers,
  });
  return { ...server, spaces };
}

async function openTab(path = '/settings/spaces') {
  const user = userEvent.setup({ delay: null });
  const view = renderApp(path);
  const card = await screen.findByRole('region', { name: 'Spaces' }, { timeout: 5000 });
  return { user, card, ...view };
}

describe('Settings → Spaces', { timeout: 20_000 }, () => {
  it('is a tab of Settings, beside Account', async () => {
    signedIn();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/settings');
    const tabs = await screen.findByRole(
      'navigation',
      { name: 'Settings sections' },
      { timeout: 5000 },
    );
    expect(within(tabs).getByRole('link', { name: 'Account' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await user.click(within(tabs).getByRole('link', { name: 'Spaces' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/spaces'));
    expect(await screen.findByRole('region', { name: 'Spaces' })).toBeVisible();
    // Each section is its own page: the bar is drawn again on it.
    const shown = screen.getByRole('navigation', { name: 'Settings sections' });
    expect(within(shown).getByRole('link', { name: 'Spaces' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('lists each space with its slug and what it holds; default cannot be deleted', async () => {
    signedIn();
    const { card } = await openTab();
    const list = await within(card).findByRole('list', { name: 'Spaces' });
    const [alpha, first] = within(list).getAllByRole('listitem');
    expect(alpha).toHaveTextContent('Project Alpha');
    expect(alpha).toHaveTextContent('alpha · 1 entity · 0 relations · 2 observations');
    expect(first).toHaveTextContent('default · 12 entities · 3 relations · 40 observations');
    expect(within(first!).getByText('Shown')).toBeInTheDocument();
    expect(within(first!).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
    expect(within(alpha!).getByRole('button', { name: 'Delete Project Alpha' })).toBeVisible();
  });

  it('offers a member New space and Rename, but not Delete (admins and owners only)', async () => {
    signedIn(testUserAs('member'));
    const { card } = await openTab();
    const list = await within(card).findByRole('list', { name: 'Spaces' });
    expect(within(card).getByRole('button', { name: 'New space' })).toBeVisible();
    expect(within(list).getByRole('button', { name: 'Rename Project Alpha' })).toBeVisible();
    expect(within(list).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('offers a viewer neither New space, Rename nor Delete, here or in the header', async () => {
    signedIn(testUserAs('viewer'));
    const { user, card } = await openTab();
    const list = await within(card).findByRole('list', { name: 'Spaces' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    expect(within(card).queryByRole('button', { name: 'New space' })).not.toBeInTheDocument();
    expect(within(list).queryByRole('button', { name: /Rename|Delete/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /^Memory space:/ }));
    expect(await screen.findByRole('option', { name: /Project Alpha/ })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New space…' })).not.toBeInTheDocument();
  });

  it('renames a space; its slug stays', async () => {
    const { requests } = signedIn();
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openTab();
    await user.click(await within(card).findByRole('button', { name: 'Rename Project Alpha' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rename space' });
    const name = within(dialog).getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'Alpha Two');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Space renamed to "Alpha Two"'));
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(patch?.path).toBe('/api/spaces/alpha');
    expect(patch?.body).toEqual({ name: 'Alpha Two' });
    expect(await within(card).findByText('Alpha Two')).toBeInTheDocument();
  });

  it('deletes a space only once its slug is typed', async () => {
    const { requests } = signedIn();
    const { user, card } = await openTab();
    await user.click(await within(card).findByRole('button', { name: 'Delete Project Alpha' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete space' });
    expect(dialog).toHaveTextContent('deleted for good');
    expect(dialog).toHaveTextContent('It holds 1 entity · 0 relations · 2 observations.');
    const confirm = within(dialog).getByRole('button', { name: 'Delete space' });
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Type alpha to confirm'), 'alph');
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Type alpha to confirm'), 'a');
    await user.click(confirm);
    await waitFor(() =>
      expect(requests.some((r) => r.method === 'DELETE' && r.path === '/api/spaces/alpha')).toBe(
        true,
      ),
    );
    await waitFor(() => expect(within(card).queryByText('Project Alpha')).not.toBeInTheDocument());
  });

  it('deleting the shown space goes back to the default one', async () => {
    signedIn();
    const { user, card, router } = await openTab('/settings/spaces?space=alpha');
    await user.click(await within(card).findByRole('button', { name: 'Delete Project Alpha' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete space' });
    await user.type(within(dialog).getByLabelText('Type alpha to confirm'), 'alpha');
    await user.click(within(dialog).getByRole('button', { name: 'Delete space' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/settings/spaces');
  });

  it('creates a space', async () => {
    const { requests } = signedIn();
    const { user, card } = await openTab();
    await user.click(within(card).getByRole('button', { name: 'New space' }));
    const dialog = await screen.findByRole('dialog', { name: 'New space' });
    await user.type(within(dialog).getByLabelText('Name'), 'Beta');
    await user.click(within(dialog).getByRole('button', { name: 'Create space' }));
    expect(await within(card).findByText('Beta')).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'Beta' });
  });
});
