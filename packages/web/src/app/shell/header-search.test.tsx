import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

function server() {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/recall': (request) => ({
      status: 200,
      body: { results: [], query: request.query.get('q') },
    }),
  });
}

async function open(path: string) {
  const user = userEvent.setup({ delay: null });
  const app = renderApp(path);
  const field = await screen.findByRole('searchbox', { name: 'Search memory' }, { timeout: 5000 });
  return { user, field, ...app };
}

describe('the header search field', { timeout: 20_000 }, () => {
  it('opens Search with the question on Enter, and Search asks it', async () => {
    const { requests } = server();
    const { user, field, router } = await open('/settings');
    await user.type(field, '  where does Maya work {Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/search'));
    expect(new URLSearchParams(router.state.location.search).get('q')).toBe('where does Maya work');
    const box = await screen.findByRole('searchbox', { name: 'Ask a question' }, { timeout: 5000 });
    expect(box).toHaveValue('where does Maya work');
    // The header's field is ready for the next question.
    expect(field).toHaveValue('');
    await waitFor(() =>
      expect(
        requests.some(
          (r) => r.path === '/api/recall' && r.query.get('q') === 'where does Maya work',
        ),
      ).toBe(true),
    );
  });

  it('replaces the question of a Search screen already open', async () => {
    server();
    const { user, field, router } = await open('/search?q=old+question');
    const box = screen.getByRole('searchbox', { name: 'Ask a question' });
    expect(box).toHaveValue('old question');
    await user.type(field, 'new question{Enter}');
    await waitFor(() => expect(box).toHaveValue('new question'));
    // The screen does not write its old question back over the new one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(new URLSearchParams(router.state.location.search).get('q')).toBe('new question');
  });

  it('is focused by / unless a text field has focus', async () => {
    server();
    const { user, field } = await open('/settings');
    (document.activeElement as HTMLElement | null)?.blur();
    await user.keyboard('/');
    expect(field).toHaveFocus();
    expect(field).toHaveValue('');

    // In a text field, / is a character.
    await user.type(field, 'a/b');
    expect(field).toHaveValue('a/b');
    const other = document.createElement('textarea');
    document.body.append(other);
    other.focus();
    await user.keyboard('/');
    expect(other).toHaveFocus();
    expect(other).toHaveValue('/');
    other.remove();
  });
});
