import type { CreatedInvitation, Invitation, Member, Role } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { describe, expect, it, vi } from 'vitest';
import { readAccountId, storeAccountId } from '@/lib/account';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { fakeSpace, fakeSpaces } from '@/test/fake-spaces';
import { renderApp } from '@/test/render-app';

const RECENTLY = new Date(Date.now() - 5 * 60_000).toISOString();

function member(overrides: Partial<Member> & Pick<Member, 'userId' | 'role'>): Member {
  return {
    email: `${overrides.userId}@example.com`,
    firstName: overrides.userId.charAt(0).toUpperCase() + overrides.userId.slice(1),
    lastName: 'Example',
    joinedAt: '2027-01-05T10:00:00.000Z',
    lastActiveAt: null,
    ...overrides,
  };
}

const ADA = member({
  userId: TEST_USER.id,
  email: TEST_USER.email,
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'owner',
  lastActiveAt: RECENTLY,
});
const GRACE = member({ userId: 'grace', firstName: 'Grace', lastName: 'Hopper', role: 'admin' });
const ALAN = member({ userId: 'alan', firstName: 'Alan', lastName: 'Turing', role: 'member' });
const INVITED: Invitation = {
  id: 'inv-1',
  email: 'edsger@example.com',
  role: 'viewer',
  expiresAt: '2099-01-12T10:00:00.000Z',
};
const LINK = 'http://localhost/invitations/accept#token=tok_secret_123';

type Reply = { status: number; body?: unknown } | 'network-error';

interface ServerState {
  members?: Member[];
  invitations?: Invitation[];
  maxMembers?: number;
  /** The signed-in person's role (the session's word; the list says it too). */
  role?: Role;
  emailed?: boolean;
  overrides?: Record<string, (request: FakeRequest) => Reply>;
}

/** A signed-in session against a fake /api/members that remembers what changed. */
function membersServer({
  members: initial = [ADA, GRACE, ALAN],
  invitations: initialInvitations = [INVITED],
  maxMembers = 5,
  role = 'owner',
  emailed = false,
  overrides = {},
}: ServerState = {}) {
  localStorage.setItem('auth_token', 'valid-token');
  let members = initial.map((m) => (m.userId === TEST_USER.id ? { ...m, role } : m));
  let invitations = [...initialInvitations];
  const spaces = fakeSpaces([fakeSpace('default', 'Default')]);
  const handlers: Record<string, (request: FakeRequest) => Reply> = {
    'GET /auth/me': () => ({
      status: 200,
      body: {
        ...TEST_USER,
        accounts: [{ id: 'account-1', name: 'Ada Lovelace', role }],
        currentAccountId: 'account-1',
      },
    }),
    'GET /api/billing/subscription': () => ({
      status: 200,
      body: {
        plan: maxMembers === 1 ? 'free' : 'pro',
        name: maxMembers === 1 ? 'Free' : 'Pro',
        status: 'active',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: null,
        features: { maxEntities: 1, maxQueries: 1, maxApiKeys: 1, maxWebhooks: 0, features: [] },
        limitsPlan: maxMembers === 1 ? { id: 'free', name: 'Free' } : { id: 'pro', name: 'Pro' },
        scheduledChange: null,
        provider: 'none',
        planChanges: 'self',
      },
    }),
    'GET /api/members': () => ({ status: 200, body: { members, invitations, maxMembers } }),
    'POST /api/members/invitations': ({ body }) => {
      const input = body as { email: string; role: Role };
      const created: CreatedInvitation = {
        id: 'inv-new',
        email: input.email,
        role: input.role,
        expiresAt: '2099-01-12T10:00:00.000Z',
        url: LINK,
        emailed,
      };
      invitations = [...invitations, created];
      return { status: 201, body: created };
    },
    'DELETE /api/members/invitations/inv-1': () => {
      invitations = invitations.filter((i) => i.id !== 'inv-1');
      return { status: 200, body: { success: true } };
    },
    'POST /api/members/transfer-ownership': ({ body }) => {
      const { userId } = body as { userId: string };
      members = members.map((m) =>
        m.userId === userId
          ? { ...m, role: 'owner' }
          : m.userId === TEST_USER.id
            ? { ...m, role: 'admin' }
            : m,
      );
      return { status: 200, body: { success: true } };
    },
    ...spaces.handlers,
  };
  for (const item of members) {
    handlers[`PATCH /api/members/${item.userId}`] = ({ body }) => {
      const { role: next } = body as { role: Role };
      members = members.map((m) => (m.userId === item.userId ? { ...m, role: next } : m));
      return { status: 200, body: members.find((m) => m.userId === item.userId) };
    };
    handlers[`DELETE /api/members/${item.userId}`] = () => {
      members = members.filter((m) => m.userId !== item.userId);
      return { status: 200, body: { success: true } };
    };
  }
  return fakeServer({ ...handlers, ...overrides });
}

async function openMembers(path = '/settings/members') {
  const user = userEvent.setup({ delay: null });
  const view = renderApp(path);
  const card = await screen.findByRole('region', { name: 'Members' }, { timeout: 5000 });
  await within(card).findByRole('list', { name: 'Members' }, { timeout: 5000 });
  return { user, card, ...view };
}

const row = (card: HTMLElement, name: string) =>
  within(within(card).getByRole('list', { name: 'Members' })).getByRole('listitem', { name });

describe('Settings → Members', { timeout: 20_000 }, () => {
  it('is a tab of Settings, after Account', async () => {
    membersServer();
    const user = userEvent.setup({ delay: null });
    const { router } = renderApp('/settings');
    const tabs = await screen.findByRole(
      'navigation',
      { name: 'Settings sections' },
      { timeout: 5000 },
    );
    await user.click(within(tabs).getByRole('link', { name: 'Members' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/members'));
    expect(await screen.findByRole('region', { name: 'Members' })).toBeVisible();
  });

  it('lists each member with email, role, joined and last active, and the plan’s number', async () => {
    membersServer();
    const { card } = await openMembers();
    expect(within(card).getByTestId('member-limit')).toHaveTextContent(
      '4 of 5 members (1 invited)',
    );
    const ada = row(card, 'Ada Lovelace');
    expect(ada).toHaveTextContent('ada@example.com');
    expect(ada).toHaveTextContent('You');
    expect(ada).toHaveTextContent('Owner');
    expect(ada).toHaveTextContent('Jan 5, 2027');
    expect(ada).toHaveTextContent('5 min ago');
    // Your own role is not changed here, and the last owner cannot leave.
    expect(within(ada).queryByRole('combobox')).not.toBeInTheDocument();
    expect(within(ada).queryByRole('button', { name: 'Leave' })).not.toBeInTheDocument();
    expect(row(card, 'Alan Turing')).toHaveTextContent('Never');

    const pending = within(card).getByRole('list', { name: 'Pending invitations' });
    const edsger = within(pending).getByRole('listitem', { name: 'edsger@example.com' });
    expect(edsger).toHaveTextContent('Viewer');
    expect(edsger).toHaveTextContent('Expires Jan 12, 2099');
  });

  it('lets an owner change a role at once', async () => {
    const { requests } = membersServer();
    const success = vi.spyOn(toast, 'success');
    const { user, card } = await openMembers();
    const select = within(row(card, 'Alan Turing')).getByRole('combobox', {
      name: 'Role of Alan Turing',
    });
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Owner', 'Admin', 'Member', 'Viewer']);
    await user.selectOptions(select, 'viewer');
    await waitFor(() => expect(success).toHaveBeenCalledWith('Alan Turing is now a viewer'));
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(patch?.path).toBe('/api/members/alan');
    expect(patch?.body).toEqual({ role: 'viewer' });
    await waitFor(() => expect(select).toHaveValue('viewer'));
  });

  it('shows the server’s refusal of a role change', async () => {
    membersServer({
      overrides: {
        'PATCH /api/members/grace': () => ({
          status: 409,
          body: { error: 'The account’s last owner cannot be demoted', code: 'CONFLICT' },
        }),
      },
    });
    const error = vi.spyOn(toast, 'error');
    const { user, card } = await openMembers();
    await user.selectOptions(
      within(row(card, 'Grace Hopper')).getByRole('combobox', { name: 'Role of Grace Hopper' }),
      'member',
    );
    await waitFor(() =>
      expect(error).toHaveBeenCalledWith('The account’s last owner cannot be demoted'),
    );
  });

  it('invites by email and role, and shows the link once with a copy button', async () => {
    const { requests } = membersServer({ maxMembers: 10 });
    const { user, card } = await openMembers();
    const form = within(card).getByRole('form', { name: 'Invite a member' });
    expect(within(form).getByRole('button', { name: 'Invite' })).toBeDisabled();
    await user.type(within(form).getByLabelText('Email address'), ' colleague@example.com ');
    await user.selectOptions(within(form).getByLabelText('Role'), 'admin');
    expect(form).toHaveTextContent('Admin: members (not owners)');
    await user.click(within(form).getByRole('button', { name: 'Invite' }));

    const banner = await screen.findByRole('region', { name: 'Invitation created' });
    expect(within(banner).getByTestId('invitation-link')).toHaveTextContent(LINK);
    expect(banner).toHaveTextContent(
      'This server sends no email: copy the link and send it to colleague@example.com yourself.',
    );
    expect(within(banner).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/members/invitations')?.body).toEqual({
      email: 'colleague@example.com',
      role: 'admin',
    });
    expect(within(form).getByLabelText('Email address')).toHaveValue('');
    await user.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('invitation-link')).not.toBeInTheDocument();
  });

  it('says when the link was emailed too', async () => {
    membersServer({ emailed: true });
    const { user, card } = await openMembers();
    const form = within(card).getByRole('form', { name: 'Invite a member' });
    await user.type(within(form).getByLabelText('Email address'), 'colleague@example.com');
    await user.click(within(form).getByRole('button', { name: 'Invite' }));
    expect(
      await screen.findByRole('region', { name: 'Invitation emailed to colleague@example.com' }),
    ).toBeInTheDocument();
  });

  it('shows why an invitation was refused: the email under its field, the rest below', async () => {
    let answer: Reply = {
      status: 400,
      body: {
        error: 'Validation failed',
        code: 'VALIDATION_ERROR',
        details: [{ field: 'email', message: 'Please enter a valid email address' }],
      },
    };
    membersServer({ overrides: { 'POST /api/members/invitations': () => answer } });
    const { user, card } = await openMembers();
    const form = within(card).getByRole('form', { name: 'Invite a member' });
    const email = within(form).getByLabelText('Email address');
    await user.type(email, 'nope@');
    await user.click(within(form).getByRole('button', { name: 'Invite' }));
    expect(await within(form).findByText('Please enter a valid email address')).toBeVisible();
    expect(email).toHaveAttribute('aria-invalid', 'true');

    answer = {
      status: 402,
      body: { error: 'Your plan allows 5 members', code: 'PAYMENT_REQUIRED' },
    };
    await user.type(email, 'x.com');
    await user.click(within(form).getByRole('button', { name: 'Invite' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Your plan allows 5 members');
  });

  it('revokes a pending invitation', async () => {
    const { requests } = membersServer();
    const { user, card } = await openMembers();
    await user.click(
      within(card).getByRole('button', { name: 'Revoke the invitation for edsger@example.com' }),
    );
    await waitFor(() =>
      expect(within(card).queryByRole('list', { name: 'Pending invitations' })).toBeNull(),
    );
    expect(requests.some((r) => r.method === 'DELETE' && r.path.endsWith('/inv-1'))).toBe(true);
    expect(within(card).getByTestId('member-limit')).toHaveTextContent('3 of 5 members');
  });

  it('removes a member after asking; Cancel keeps them', async () => {
    const { requests } = membersServer();
    const { user, card } = await openMembers();
    const actions = () =>
      within(row(card, 'Alan Turing')).getByRole('button', { name: 'Actions for Alan Turing' });

    await user.click(actions());
    await user.click(await screen.findByRole('menuitem', { name: 'Remove from account' }));
    let dialog = await screen.findByRole('dialog', { name: 'Remove member' });
    expect(dialog).toHaveTextContent('Remove Alan Turing (alan@example.com) from Ada Lovelace?');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);

    await user.click(actions());
    await user.click(await screen.findByRole('menuitem', { name: 'Remove from account' }));
    dialog = await screen.findByRole('dialog', { name: 'Remove member' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove member' }));
    await waitFor(() =>
      expect(within(card).queryByRole('listitem', { name: 'Alan Turing' })).toBeNull(),
    );
    expect(requests.find((r) => r.method === 'DELETE')?.path).toBe('/api/members/alan');
  });

  it('transfers ownership after asking; the owner becomes an admin', async () => {
    const { requests } = membersServer();
    const { user, card } = await openMembers();
    await user.click(
      within(row(card, 'Grace Hopper')).getByRole('button', { name: 'Actions for Grace Hopper' }),
    );
    await user.click(await screen.findByRole('menuitem', { name: 'Transfer ownership' }));
    const dialog = await screen.findByRole('dialog', { name: 'Transfer ownership' });
    expect(dialog).toHaveTextContent('Make Grace Hopper the owner of Ada Lovelace?');
    await user.click(within(dialog).getByRole('button', { name: 'Transfer ownership' }));
    await waitFor(() => expect(row(card, 'Grace Hopper')).toHaveTextContent('Owner'));
    expect(requests.find((r) => r.path === '/api/members/transfer-ownership')?.body).toEqual({
      userId: 'grace',
    });
    // The person is read again: their own role changed.
    await waitFor(() =>
      expect(requests.filter((r) => r.path === '/auth/me').length).toBeGreaterThan(1),
    );
  });

  it('lets an admin manage all but owners, and never make one', async () => {
    membersServer({ role: 'admin', members: [ADA, GRACE, ALAN] });
    const { card } = await openMembers();
    const alan = within(row(card, 'Alan Turing')).getByRole('combobox', {
      name: 'Role of Alan Turing',
    });
    expect(
      within(alan)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Admin', 'Member', 'Viewer']);
    expect(within(card).getByRole('form', { name: 'Invite a member' })).toBeInTheDocument();
  });

  it('shows an admin the owner read-only', async () => {
    const BARBARA = member({
      userId: 'barbara',
      firstName: 'Barbara',
      lastName: 'Liskov',
      role: 'owner',
    });
    membersServer({ role: 'admin', members: [BARBARA, ADA, ALAN] });
    const { card } = await openMembers();
    const owner = row(card, 'Barbara Liskov');
    expect(within(owner).queryByRole('combobox')).not.toBeInTheDocument();
    expect(within(owner).queryByRole('button', { name: /Actions for/ })).not.toBeInTheDocument();
    expect(within(owner).getByTestId('member-role')).toHaveTextContent('Owner');
    // An admin may leave.
    expect(within(row(card, 'Ada Lovelace')).getByRole('button', { name: 'Leave' })).toBeVisible();
  });

  it('shows a viewer the list read-only, and lets them leave for their own account', async () => {
    const BARBARA = member({
      userId: 'barbara',
      firstName: 'Barbara',
      lastName: 'Liskov',
      role: 'owner',
    });
    const { requests } = membersServer({ role: 'viewer', members: [BARBARA, ADA, ALAN] });
    storeAccountId('acme');
    const { user, card, router } = await openMembers();
    expect(within(card).queryByRole('combobox')).not.toBeInTheDocument();
    expect(within(card).queryByRole('form', { name: 'Invite a member' })).not.toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: /Actions for/ })).not.toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
    expect(card).toHaveTextContent('You are a viewer here');
    // What they read was read in the chosen account.
    expect(requests.find((r) => r.path === '/api/members')?.headers.get('X-Engram-Account')).toBe(
      'acme',
    );

    await user.click(within(row(card, 'Ada Lovelace')).getByRole('button', { name: 'Leave' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave account' });
    await user.click(within(dialog).getByRole('button', { name: 'Leave account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(requests.find((r) => r.method === 'DELETE')?.path).toBe(`/api/members/${TEST_USER.id}`);
    expect(readAccountId()).toBeNull();
  });

  it('says a plan for one person has no room, with a link to the plans', async () => {
    membersServer({ members: [ADA], invitations: [], maxMembers: 1 });
    const { card } = await openMembers();
    expect(within(card).getByTestId('member-limit')).toHaveTextContent('1 of 1 member');
    const note = await within(card).findByTestId('members-plan-note');
    await waitFor(() =>
      expect(note).toHaveTextContent(
        'Your Free plan is for one person. Compare plans to invite your team.',
      ),
    );
    expect(within(note).getByRole('link', { name: 'Compare plans' })).toHaveAttribute(
      'href',
      '/pricing',
    );
    expect(within(card).queryByRole('form', { name: 'Invite a member' })).not.toBeInTheDocument();
  });

  it('says when every seat is taken', async () => {
    membersServer({ maxMembers: 4 });
    const { card } = await openMembers();
    expect(within(card).getByTestId('member-limit')).toHaveTextContent('4 of 4 members');
    expect(await within(card).findByTestId('members-plan-note')).toHaveTextContent(
      /Every seat your .*plan allows is taken/,
    );
    expect(within(card).queryByRole('form', { name: 'Invite a member' })).not.toBeInTheDocument();
  });
});
