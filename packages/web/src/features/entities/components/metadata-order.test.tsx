import type { Entity } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

// Metadata is shown in the order its keys were given (issue 31, finding 9):
// the card's first three pairs, the View dialog's pretty JSON and the Edit
// form's text, also after an edit that only moves keys.

beforeAll(() => {
  // jsdom lacks what Radix's select and popper measure with.
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => undefined;
  Element.prototype.scrollIntoView ??= () => undefined;
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});

const GIVEN = { zeta: 1, a: 2, mid: { y: 1, b: 2 }, bb: 3 };
const MOVED = { bb: 3, mid: { b: 2, y: 1 }, zeta: 1, a: 2 };

function entityWith(metadata: Record<string, unknown>): Entity {
  return {
    id: 'e1',
    name: 'Ada Lovelace',
    type: 'person',
    aliases: [],
    metadata,
    observations: [],
    observationsCount: 0,
    createdAt: '2027-01-05T10:00:00.000Z',
    updatedAt: '2027-01-05T10:00:00.000Z',
  };
}

/** A server that keeps the metadata it is sent, as Engram's does. */
function server() {
  localStorage.setItem('auth_token', 'valid-token');
  let stored = entityWith(GIVEN);
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/entities': () => ({
      status: 200,
      body: { entities: [stored], total: 1, nextOffset: null, truncated: false, nextCursor: null },
    }),
    'GET /api/entities/types': () => ({
      status: 200,
      body: { types: [{ type: 'person', label: 'Person', count: 1 }], nextCursor: null },
    }),
    'GET /api/entities/e1': () => ({ status: 200, body: stored }),
    'PUT /api/entities/e1': (request) => {
      stored = { ...stored, ...(request.body as Partial<Entity>) };
      return { status: 200, body: stored };
    },
  });
}

const terms = (card: HTMLElement) =>
  within(card)
    .getAllByRole('term')
    .map((term) => term.textContent);

describe('metadata key order on the Entity Management screen', { timeout: 20_000 }, () => {
  it('shows the keys as given, and as moved by an edit', async () => {
    const { requests } = server();
    const user = userEvent.setup({ delay: null });
    renderApp('/entities');
    const card = await screen.findByRole('article', { name: 'Ada Lovelace' }, { timeout: 5000 });
    expect(terms(card)).toEqual(['zeta:', 'a:', 'mid:']);

    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'View Details' }));
    let dialog = await screen.findByRole('dialog', { name: 'Ada Lovelace' });
    expect(within(dialog).getByRole('region', { name: 'Metadata' })).toHaveTextContent(
      JSON.stringify(GIVEN, null, 2).replace(/\s+/g, ' '),
      { normalizeWhitespace: true },
    );
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit Entity' }));
    dialog = await screen.findByRole('dialog', { name: 'Edit Entity' });
    const text = await within(dialog).findByLabelText('Metadata (JSON)');
    expect(text).toHaveValue(JSON.stringify(GIVEN, null, 2));

    // The same pairs, only in another order.
    await user.clear(text);
    await user.click(text);
    await user.paste(JSON.stringify(MOVED));
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'PUT')).toBe(true));
    const sent = requests.find((request) => request.method === 'PUT')!.body as Entity;
    expect(JSON.stringify(sent.metadata)).toBe(JSON.stringify(MOVED));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    // Read again, the card follows the new order: the cache does not keep
    // the old object because its pairs are equal.
    await waitFor(() => expect(terms(card)).toEqual(['bb:', 'mid:', 'zeta:']));
    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'View Details' }));
    dialog = await screen.findByRole('dialog', { name: 'Ada Lovelace' });
    expect(within(dialog).getByRole('region', { name: 'Metadata' })).toHaveTextContent(
      JSON.stringify(MOVED, null, 2).replace(/\s+/g, ' '),
      { normalizeWhitespace: true },
    );
  });
});
