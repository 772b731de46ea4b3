import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

async function setup() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/login');
  await screen.findByLabelText('Email Address');
  return { user, ...app };
}

const signInButton = () => screen.getByRole('button', { name: 'Sign In' });

describe('Login form', () => {
  it('disables Sign In while either field is empty', async () => {
    fakeServer({});
    const { user } = await setup();
    expect(signInButton()).toBeDisabled();
    await user.type(screen.getByLabelText('Email Address'), 'ada@example.com');
    expect(signInButton()).toBeDisabled();
    await user.type(screen.getByLabelText('Password'), 'secret');
    expect(signInButton()).toBeEnabled();
    await user.clear(screen.getByLabelText('Email Address'));
    expect(signInButton()).toBeDisabled();
  });

  it("says 'Please fill in all fields' for a blank email", async () => {
    const { requests } = fakeServer({});
    const { user } = await setup();
    await user.type(screen.getByLabelText('Email Address'), '   ');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(signInButton());
    expect(await screen.findByText('Please fill in all fields')).toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });

  it('explains a rejected sign-in and clears the message on edit', async () => {
    fakeServer({
      'POST /auth/login': () => ({
        status: 401,
        body: { error: 'Invalid email or password', code: 'UNAUTHORIZED' },
      }),
    });
    const { user, router } = await setup();
    await user.type(screen.getByLabelText('Email Address'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong-password');
    await user.click(signInButton());
    expect(
      await screen.findByText('Invalid email or password. Please try again.'),
    ).toBeInTheDocument();
    // A wrong password is not an expired session: the page stays put.
    expect(router.state.location.pathname).toBe('/login');
    await user.type(screen.getByLabelText('Password'), 'x');
    expect(
      screen.queryByText('Invalid email or password. Please try again.'),
    ).not.toBeInTheDocument();
  });

  it('tells a locked-out person how long the lock lasts', async () => {
    const lock = 'Too many failed sign-ins for this email. Try again in 15 minutes.';
    fakeServer({
      'POST /auth/login': () => ({ status: 429, body: { error: lock, code: 'RATE_LIMITED' } }),
    });
    const { user } = await setup();
    await user.type(screen.getByLabelText('Email Address'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(signInButton());
    expect(await screen.findByText(lock)).toBeInTheDocument();
  });

  it("says 'Login failed. Please try again.' on any other failure", async () => {
    fakeServer({
      'POST /auth/login': () => ({ status: 500, body: { error: 'Boom', code: 'INTERNAL_ERROR' } }),
    });
    const { user } = await setup();
    await user.type(screen.getByLabelText('Email Address'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(signInButton());
    expect(await screen.findByText('Login failed. Please try again.')).toBeInTheDocument();
  });

  it('stores the token and opens the dashboard', async () => {
    const { requests } = fakeServer({
      'POST /auth/login': () => ({
        status: 200,
        body: { token: 'session-token', user: TEST_USER },
      }),
    });
    const { user, router } = await setup();
    await user.type(screen.getByLabelText('Email Address'), ' Ada@Example.com');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(signInButton());
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(localStorage.getItem('auth_token')).toBe('session-token');
    expect(requests[0]?.body).toEqual({ email: 'ada@example.com', password: 'secret' });
    expect(await screen.findByText('Knowledge Graph Dashboard')).toBeInTheDocument();
  });
});
