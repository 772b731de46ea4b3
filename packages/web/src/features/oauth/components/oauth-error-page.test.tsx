import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeServer } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import {
  OAUTH_ERROR_MESSAGES,
  UNKNOWN_OAUTH_ERROR,
  oauthErrorMessage,
} from './oauth-error-messages';

describe('OAuth error page', { timeout: 20_000 }, () => {
  it('says what went wrong in words, for anyone, with a way back', async () => {
    fakeServer({});
    const { router } = renderApp('/oauth/error?error=invalid_redirect_uri');
    const expected = OAUTH_ERROR_MESSAGES['invalid_redirect_uri']!;
    expect(
      await screen.findByRole('heading', { name: expected.title }, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(screen.getByText(expected.body)).toBeInTheDocument();
    await userEvent
      .setup({ delay: null })
      .click(screen.getByRole('link', { name: 'Go to the dashboard' }));
    // Signed out, the dashboard asks to sign in first.
    await screen.findByRole('button', { name: /sign in/i }, { timeout: 5000 });
    expect(['/login', '/dashboard']).toContain(router.state.location.pathname);
  });

  it('never shows words from the link: an unknown code gets the general message', async () => {
    fakeServer({});
    renderApp(
      '/oauth/error?error=call_support&error_description=Call%20%2B1-555-0100%20to%20unlock',
    );
    expect(
      await screen.findByRole('heading', { name: UNKNOWN_OAUTH_ERROR.title }, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(screen.queryByText(/555-0100/)).not.toBeInTheDocument();
    expect(screen.queryByText(/call_support/)).not.toBeInTheDocument();
  });

  it('keeps its table to its own keys', () => {
    expect(oauthErrorMessage('toString')).toBe(UNKNOWN_OAUTH_ERROR);
    expect(oauthErrorMessage(null)).toBe(UNKNOWN_OAUTH_ERROR);
    expect(oauthErrorMessage('invalid_request')).toBe(OAUTH_ERROR_MESSAGES['invalid_request']);
  });
});
