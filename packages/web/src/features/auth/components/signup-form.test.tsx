import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

const CREATED = { status: 201, body: { token: 'new-session-token', user: TEST_USER } };

async function fillForm(
  user: ReturnType<typeof userEvent.setup>,
  values: Partial<
    Record<'First Name' | 'Last Name' | 'Email Address' | 'Password' | 'Confirm Password', string>
  >,
) {
  for (const [label, value] of Object.entries(values)) {
    const input = screen.getByLabelText(label);
    await user.clear(input);
    if (value) await user.type(input, value);
  }
}

const VALID = {
  'First Name': 'Ada',
  'Last Name': 'Lovelace',
  'Email Address': 'ada@example.com',
  Password: 'Engines1843',
  'Confirm Password': 'Engines1843',
};

function submitButton(name: string | RegExp = 'Create Account') {
  return screen.getByRole('button', { name });
}

describe('Sign up form', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup(path = '/signup', { fakeTimers = false } = {}) {
    // Only the redirect tests need a controllable clock for the 2 s pause.
    if (fakeTimers) vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({
      delay: null,
      advanceTimers: fakeTimers ? vi.advanceTimersByTime : undefined,
    });
    const app = renderApp(path);
    return { user, ...app };
  }

  it('keeps the button disabled until all five fields are filled', async () => {
    fakeServer({});
    const { user } = setup();
    await screen.findByLabelText('First Name');
    expect(submitButton()).toBeDisabled();
    await fillForm(user, { ...VALID, 'Confirm Password': '' });
    expect(submitButton()).toBeDisabled();
    await fillForm(user, { 'Confirm Password': 'x' });
    expect(submitButton()).toBeEnabled();
  });

  it('shows each validation message in order, and nothing is sent', async () => {
    const { requests } = fakeServer({ 'POST /auth/register': () => CREATED });
    const { user } = setup();
    await screen.findByLabelText('First Name');
    await fillForm(user, {
      'First Name': ' ',
      'Last Name': ' ',
      'Email Address': ' ',
      Password: 'short',
      'Confirm Password': 'different',
    });

    const steps: [string, Partial<typeof VALID>][] = [
      ['First name is required', { 'First Name': 'Ada' }],
      ['Last name is required', { 'Last Name': 'Lovelace' }],
      ['Email address is required', { 'Email Address': 'ada-at-example' }],
      ['Please enter a valid email address', { 'Email Address': 'ada@example.com' }],
      ['Password must be at least 8 characters long', { Password: 'Engines1843' }],
      ['Passwords do not match', {}],
    ];
    for (const [message, fix] of steps) {
      await user.click(submitButton());
      expect(await screen.findByText(message)).toBeInTheDocument();
      await fillForm(user, fix);
    }
    expect(requests).toHaveLength(0);
  });

  it('clears the error on any edit', async () => {
    fakeServer({});
    const { user } = setup();
    await screen.findByLabelText('First Name');
    await fillForm(user, { ...VALID, 'Confirm Password': 'Engines1844' });
    await user.click(submitButton());
    expect(await screen.findByText('Passwords do not match')).toBeInTheDocument();
    await user.type(screen.getByLabelText('First Name'), 'x');
    expect(screen.queryByText('Passwords do not match')).not.toBeInTheDocument();
  });

  it('sends trimmed names and a trimmed, lower-cased email, then redirects to login after 2 s', async () => {
    const { requests } = fakeServer({
      'POST /auth/register': () => CREATED,
      'POST /auth/logout': () => ({ status: 200, body: { success: true } }),
    });
    const { user, router } = setup('/signup', { fakeTimers: true });
    await screen.findByLabelText('First Name');
    await fillForm(user, {
      ...VALID,
      'First Name': '  Ada ',
      'Last Name': ' Lovelace ',
      'Email Address': '  ADA@Example.com ',
    });
    await user.click(submitButton());

    expect(
      await screen.findByText('Account created successfully! Redirecting to login...'),
    ).toBeInTheDocument();
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/auth/register',
      body: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        password: 'Engines1843',
      },
    });
    expect(submitButton()).toBeDisabled();
    expect(router.state.location.pathname).toBe('/signup');

    await act(() => vi.advanceTimersByTimeAsync(2000));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    // The free path signs in on the login page, so the new session is not kept.
    expect(localStorage.getItem('auth_token')).toBeNull();
    // The sign-in page starts with the new account's email; the password is next.
    expect(await screen.findByLabelText('Email Address')).toHaveValue('ada@example.com');
    expect(screen.getByLabelText('Password')).toHaveFocus();
  });

  it("shows the server's message, e.g. for a taken email", async () => {
    fakeServer({
      'POST /auth/register': () => ({
        status: 409,
        body: { error: 'An account with this email already exists', code: 'CONFLICT' },
      }),
    });
    const { user } = setup();
    await screen.findByLabelText('First Name');
    await fillForm(user, VALID);
    await user.click(submitButton());
    expect(
      await screen.findByText('An account with this email already exists'),
    ).toBeInTheDocument();
    expect(submitButton()).toBeEnabled();
  });

  it("falls back to 'Registration failed. Please try again.'", async () => {
    fakeServer({ 'POST /auth/register': () => 'network-error' });
    const { user } = setup();
    await screen.findByLabelText('First Name');
    await fillForm(user, VALID);
    await user.click(submitButton());
    expect(await screen.findByText('Registration failed. Please try again.')).toBeInTheDocument();
  });

  it("says 'Failed to create account. Please try again.' when no account comes back", async () => {
    fakeServer({ 'POST /auth/register': () => ({ status: 201, body: { success: false } }) });
    const { user } = setup();
    await screen.findByLabelText('First Name');
    await fillForm(user, VALID);
    await user.click(submitButton());
    expect(
      await screen.findByText('Failed to create account. Please try again.'),
    ).toBeInTheDocument();
  });

  it('with a paid plan shows the Selected Plan banner and the subscribe button', async () => {
    fakeServer({});
    setup('/signup?plan=pro&billing=annual');
    expect(await screen.findByText('Selected Plan')).toBeInTheDocument();
    expect(screen.getByText("You'll be taken to billing after signup")).toBeInTheDocument();
    expect(submitButton('Create Account & Subscribe to Pro')).toBeDisabled();
  });

  it('ignores the free plan and unknown plans in the query', async () => {
    fakeServer({});
    setup('/signup?plan=free&billing=monthly');
    expect(await screen.findByRole('button', { name: 'Create Account' })).toBeInTheDocument();
    expect(screen.queryByText('Selected Plan')).not.toBeInTheDocument();
  });

  it('when checkout cannot start, keeps the session and goes to /dashboard after 2 s', async () => {
    const { requests } = fakeServer({ 'POST /auth/register': () => CREATED });
    const { user, router } = setup('/signup?plan=team&billing=monthly', { fakeTimers: true });
    await screen.findByLabelText('First Name');
    await fillForm(user, VALID);
    await user.click(submitButton('Create Account & Subscribe to Power User'));

    await waitFor(() =>
      expect(requests.map((request) => request.path)).toContain('/api/billing/checkout'),
    );
    const checkout = requests.find((request) => request.path === '/api/billing/checkout');
    expect(checkout?.headers.get('Authorization')).toBe('Bearer new-session-token');
    expect(checkout?.body).toEqual({
      priceId: 'price_team_monthly',
      successUrl: `${window.location.origin}/dashboard?payment=success`,
      cancelUrl: `${window.location.origin}/signup?plan=team&billing=monthly&payment=cancelled`,
    });
    expect(router.state.location.pathname).toBe('/signup');

    await act(() => vi.advanceTimersByTimeAsync(2000));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(localStorage.getItem('auth_token')).toBe('new-session-token');
  });
});
