import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

// Issue 58, item 2: an app's connection that sends a signed-out person to
// sign in says which app is asking, and where the browser goes back to.

describe('Sign-in during an app’s connection', () => {
  it('names the app and the host it sends the browser back to', async () => {
    fakeServer({
      'GET /api/oauth/interactions/uid-123/app': () => ({
        status: 200,
        body: { name: 'Claude', redirectHost: 'claude.ai' },
      }),
    });
    renderApp('/oauth/consent?uid=uid-123');
    const note = await screen.findByTestId('connecting-app');
    expect(note).toHaveTextContent(
      'Sign in to connect Claude to Engram. It will send you back to claude.ai.',
    );
    expect(screen.getByLabelText('Email Address')).toBeInTheDocument();
  });

  it('says nothing of an app on a plain sign-in, or when the request is unknown', async () => {
    const { requests } = fakeServer({});
    renderApp('/oauth/consent?uid=expired');
    await screen.findByLabelText('Email Address');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests.map((request) => request.path)).toContain(
      '/api/oauth/interactions/expired/app',
    );
    expect(screen.queryByTestId('connecting-app')).toBeNull();
  });
});
