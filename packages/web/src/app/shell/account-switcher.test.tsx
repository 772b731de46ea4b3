import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { readAccountId, storeAccountId } from '@/lib/account';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { fakeSpace, fakeSpaces } from '@/test/fake-spaces';
import { FakeWebSocket } from '@/test/fake-websocket';
import { renderApp } from '@/test/render-app';

const ACME = { id: 'acme', name: 'Acme Research', role: 'viewer' as const };
const TWO_ACCOUNTS = [...TEST_USER.accounts, ACME];
const emptyEntities = { entities: [], total: 0, nextCursor: null };

type Reply = { status: number; body?: unknown };

const accountOf = (request: FakeRequest) => request.headers.get('X-Engram-Account');

/** A person in two accounts: /auth/me answers for the account each request names. */
function signedIn(
  accounts = TWO_ACCOUNTS,
  extra: Record<string, (request: FakeRequest) => Reply> = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  const spaces = fakeSpaces([fakeSpace('default', 'Default'), fakeSpace('alpha', 'Alpha')]);
  return fakeServer({
    'GET /auth/me': (request) => {
      const named = accountOf(request);
      return {
        status: 200,
        body: {
          ...TEST_USER,
          apiKey: named === 'acme' ? 'eng_key_in_acme' : TEST_USER.apiKey,
          accounts,
          currentAccountId: named ?? 'account-1',
        },
      };
    },
    'GET /api/entities': () => ({ status: 200, body: emptyEntities }),
    'GET /api/entities/types': () => ({ status: 200, body: { types: [], nextCursor: null } }),
    ...spaces.handlers,
    ...extra,
  });
}

const trigger = (name: string) =>
  screen.findByRole('button', { name: `Account: ${name}` }, { timeout: 5000 });

describe('the account switcher (shell header)', { timeout: 20_000 }, () => {
  it('is not shown to a person in one account', async () => {
    signedIn(TEST_USER.accounts);
    renderApp('/entities');
    expect(
      await screen.findByRole('button', { name: 'Memory space: Default' }, { timeout: 5000 }),
    ).toBeVisible();
    expect(screen.queryByRole('button', { name: /^Account:/ })).not.toBeInTheDocument();
  });

  it('names the account and the role there, and switches to another in its default space', async () => {
    const { requests } = signedIn();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities?space=alpha');
    await user.click(await trigger('Ada Lovelace (Owner)'));
    const menu = await screen.findByRole('menu');
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'Ada LovelaceOwner',
      'Acme ResearchViewer',
    ]);
    expect(items[0]).toHaveAttribute('aria-current', 'true');
    // Before the switch, nothing names an account.
    expect(requests.every((request) => accountOf(request) === null)).toBe(true);
    const before = requests.length;

    await user.click(within(menu).getByRole('menuitem', { name: /Acme Research/ }));
    expect(await trigger('Acme Research (Viewer)')).toBeVisible();
    expect(readAccountId()).toBe('acme');
    // The same screen, in the other account's default space.
    expect(router.state.location.pathname).toBe('/entities');
    expect(router.state.location.search).toBe('');
    const after = requests.slice(before);
    expect(after.some((request) => request.path === '/auth/me')).toBe(true);
    expect(after.some((request) => request.path === '/api/entities')).toBe(true);
    expect(after.every((request) => accountOf(request) === 'acme')).toBe(true);
    expect(
      after.find((request) => request.path === '/api/entities')?.headers.get('X-Engram-Space'),
    ).toBe('default');
    // The live feed follows, with the person's key in that account.
    await waitFor(() =>
      expect(FakeWebSocket.latest.url).toBe(
        `ws://${window.location.host}/ws/connect?api_key=eng_key_in_acme&space=default&account=acme`,
      ),
    );
  });

  it('from one entity’s page, opens the list in the other account', async () => {
    signedIn(TWO_ACCOUNTS, {
      'GET /api/entities/e-1': () => ({
        status: 404,
        body: { error: 'Entity not found', code: 'NOT_FOUND' },
      }),
    });
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/entities/e-1');
    await user.click(await trigger('Ada Lovelace (Owner)'));
    await user.click(await screen.findByRole('menuitem', { name: /Acme Research/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities'));
  });

  it('falls back to the person’s own account when the remembered one is gone', async () => {
    storeAccountId('gone');
    const info = vi.spyOn(toast, 'info');
    const { requests } = signedIn(TEST_USER.accounts, {
      'GET /auth/me': (request) =>
        accountOf(request) === 'gone'
          ? { status: 404, body: { error: 'Account not found', code: 'NOT_FOUND' } }
          : { status: 200, body: TEST_USER },
    });
    renderApp('/entities');
    expect(
      await screen.findByRole('button', { name: 'Memory space: Default' }, { timeout: 5000 }),
    ).toBeVisible();
    expect(readAccountId()).toBeNull();
    expect(info).toHaveBeenCalledWith('You no longer have access to that account', {
      description: 'Showing your own account instead.',
    });
    expect(localStorage.getItem('auth_token')).toBe('valid-token');
    const entities = requests.filter((request) => request.path === '/api/entities');
    expect(entities.length).toBeGreaterThan(0);
    expect(entities.every((request) => accountOf(request) === null)).toBe(true);
  });

  it('forgets a chosen account when any call says it is gone', async () => {
    storeAccountId('acme');
    signedIn(TWO_ACCOUNTS, {
      'GET /api/entities': (request) =>
        accountOf(request) === 'acme'
          ? { status: 404, body: { error: 'Account not found', code: 'NOT_FOUND' } }
          : { status: 200, body: emptyEntities },
    });
    renderApp('/entities');
    await waitFor(() => expect(readAccountId()).toBeNull());
    expect(await trigger('Ada Lovelace (Owner)')).toBeVisible();
  });
});
