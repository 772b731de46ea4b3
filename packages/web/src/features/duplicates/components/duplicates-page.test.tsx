import type { DuplicateCandidate, DuplicateList, Entity } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

// Issue 59: the Duplicates screen (/duplicates) against a fake server.

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => undefined;
  Element.prototype.scrollIntoView ??= () => undefined;
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});

beforeEach(() => {
  vi.spyOn(toast, 'success');
  vi.spyOn(toast, 'error');
});

const at = '2027-01-05T10:00:00.000Z';
const observations = (...texts: string[]) =>
  texts.map((content) => ({ id: `o-${content}`, content, createdAt: at }));

function entity(id: string, name: string, overrides: Partial<Entity> = {}): Entity {
  const base: Entity = {
    id,
    name,
    type: 'person',
    aliases: [],
    metadata: {},
    observations: [],
    observationsCount: 0,
    createdAt: at,
    updatedAt: at,
  };
  return { ...base, ...overrides };
}

const ADA = entity('e-ada', 'Ada Lovelace', {
  aliases: ['Countess of Lovelace'],
  metadata: { born: 1815, field: 'mathematics' },
  observations: observations(
    'Wrote the first program',
    'Worked with Babbage',
    'Translated Menabrea',
  ),
  observationsCount: 5,
});
const SHORT = entity('e-short', 'A. Lovelace', {
  observations: observations('Born in London', 'Daughter of Byron', 'Died in 1852'),
  observationsCount: 3,
});
const GRACE = entity('e-grace', 'Grace Hopper');
const HOPPER = entity('e-hopper', 'G. Hopper', { type: 'organization' });

const side = (e: Entity, relationsCount: number) => ({
  id: e.id,
  name: e.name,
  type: e.type,
  observationsCount: e.observationsCount,
  relationsCount,
});

/** The server names the thinner one first: the screen puts the one holding more on the left. */
const ADA_PAIR: DuplicateCandidate = {
  id: 'pair-ada',
  score: 0.86,
  reasons: ['one name is an abbreviation of the other', 'same type'],
  entities: [side(SHORT, 2), side(ADA, 4)],
};
const GRACE_PAIR: DuplicateCandidate = {
  id: 'pair-grace',
  score: 0.64,
  reasons: [
    'one name is an abbreviation of the other',
    'different types (person and organization)',
  ],
  entities: [side(GRACE, 0), side(HOPPER, 0)],
};

const ENTITIES = [ADA, SHORT, GRACE, HOPPER];

interface Options {
  user?: object;
  pages?: DuplicateCandidate[][];
  upToDate?: boolean;
  merge?: (request: FakeRequest) => { status: number; body?: unknown };
}

/** A signed-in session against a fake server holding the pairs, page by page (cursor = page index). */
function duplicatesServer({
  user = TEST_USER,
  pages = [[ADA_PAIR, GRACE_PAIR]],
  upToDate = true,
  merge,
}: Options = {}) {
  localStorage.setItem('auth_token', 'valid-token');
  const gone = new Set<string>();
  const dismissed = new Set<string>();
  const list = (request: FakeRequest): { status: number; body: DuplicateList } => {
    const page = Number(request.query.get('cursor') ?? 0);
    const entityId = request.query.get('entityId');
    const candidates = (pages[page] ?? []).filter(
      (pair) =>
        !dismissed.has(pair.id) &&
        pair.entities.every((e) => !gone.has(e.id)) &&
        (!entityId || pair.entities.some((e) => e.id === entityId)),
    );
    return {
      status: 200,
      body: {
        candidates,
        nextCursor: page + 1 < pages.length ? String(page + 1) : null,
        upToDate,
      },
    };
  };
  const handlers: Parameters<typeof fakeServer>[0] = {
    'GET /auth/me': () => ({ status: 200, body: user }),
    'GET /api/duplicates': list,
    'POST /api/entities/merge':
      merge ??
      ((request) => {
        const { sourceIds } = request.body as { targetId: string; sourceIds: string[] };
        for (const id of sourceIds) gone.add(id);
        return {
          status: 200,
          body: {
            entity: { ...ADA, aliases: [...ADA.aliases, 'A. Lovelace'], observationsCount: 7 },
            merged: { entities: 1, observations: 2, relations: 2, duplicatesDropped: 1 },
            callSeq: 77,
          },
        };
      }),
    'POST /api/changes/77/revert': () => {
      gone.clear();
      return { status: 200, body: { reverted: { callSeq: 77, changes: 1 }, seqs: [78] } };
    },
    'POST /api/duplicates/dismiss': (request) => {
      const ids = (request.body as { entityIds: string[] }).entityIds;
      for (const pair of [ADA_PAIR, GRACE_PAIR]) {
        if (pair.entities.every((e) => ids.includes(e.id))) dismissed.add(pair.id);
      }
      return { status: 204 };
    },
    'POST /api/duplicates/undismiss': () => {
      dismissed.clear();
      return { status: 204 };
    },
  };
  for (const e of ENTITIES) {
    handlers[`GET /api/entities/${e.id}`] = () =>
      gone.has(e.id)
        ? { status: 404, body: { error: 'Entity not found', code: 'NOT_FOUND' } }
        : { status: 200, body: e };
  }
  return fakeServer(handlers);
}

const writes = (requests: FakeRequest[]) => requests.filter((request) => request.method !== 'GET');

async function openScreen(path = '/duplicates') {
  const user = userEvent.setup({ delay: null });
  const app = renderApp(path);
  await screen.findByRole(
    'heading',
    { level: 1, name: 'Duplicates', hidden: true },
    { timeout: 5000 },
  );
  return { user, ...app };
}

const pairCard = (name: string) => screen.findByRole('article', { name });

/** Calls a notice's Undo as a click would (the toaster is the app's, outside these routes). */
function clickUndo(message: string) {
  const notice = vi.mocked(toast.success).mock.calls.find(([text]) => text === message);
  const action = notice?.[1]?.action as { onClick: (event: unknown) => void };
  action.onClick({});
}

describe('Duplicates screen', { timeout: 20_000 }, () => {
  it('shows each pair side by side with what a person weighs, the score and the reasons', async () => {
    duplicatesServer();
    await openScreen();
    const card = await pairCard('Ada Lovelace and A. Lovelace');
    expect(within(card).getByText('86%')).toBeInTheDocument();
    expect(
      within(within(card).getByRole('list', { name: 'Reasons' }))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['one name is an abbreviation of the other', '·same type']);

    // The one holding more on the left: its name links to its page.
    const [left, right] = within(card).getAllByRole('region');
    expect(within(left!).getByRole('link', { name: 'Ada Lovelace' })).toHaveAttribute(
      'href',
      '/entities/e-ada',
    );
    expect(within(right!).getByRole('link', { name: 'A. Lovelace' })).toHaveAttribute(
      'href',
      '/entities/e-short',
    );
    expect(within(left!).getByText('person')).toBeInTheDocument();
    expect(within(left!).getByText('5 observations')).toBeInTheDocument();
    expect(within(left!).getByText('4 relations')).toBeInTheDocument();
    expect(await within(left!).findByText('Countess of Lovelace')).toBeInTheDocument();
    expect(
      within(within(left!).getByRole('list', { name: 'Observations of Ada Lovelace' }))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Wrote the first program', 'Worked with Babbage', 'Translated Menabrea']);
    expect(within(left!).getByText('+ 2 more')).toBeInTheDocument();
    const metadata = within(left!).getByLabelText('Metadata of Ada Lovelace');
    expect(within(metadata).getByText('born:')).toBeInTheDocument();
    expect(within(metadata).getByText('1815')).toBeInTheDocument();
    expect(within(right!).getByText('2 relations')).toBeInTheDocument();
    expect(await within(right!).findByText('Daughter of Byron')).toBeInTheDocument();

    for (const name of ['Merge into Ada Lovelace', 'Merge into A. Lovelace', 'Not the same']) {
      expect(within(card).getByRole('button', { name })).toBeEnabled();
    }
    expect(screen.getByText('2 pairs')).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'Grace Hopper and G. Hopper' })).toBeInTheDocument();
  });

  it('asks before a merge, saying what moves; merges; the notice’s Undo reverts the call', async () => {
    const { requests } = duplicatesServer();
    const { user } = await openScreen();
    const card = await pairCard('Ada Lovelace and A. Lovelace');
    await within(card).findByText('Daughter of Byron');
    await user.click(within(card).getByRole('button', { name: 'Merge into Ada Lovelace' }));

    const dialog = await screen.findByRole('dialog', { name: 'Merge into Ada Lovelace?' });
    expect(dialog).toHaveAccessibleDescription(
      '3 observations and 2 relations move to Ada Lovelace. “A. Lovelace” is removed and becomes an alias.',
    );
    expect(writes(requests)).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Merge' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(writes(requests).map((request) => [request.path, request.body])).toEqual([
      ['/api/entities/merge', { targetId: 'e-ada', sourceIds: ['e-short'] }],
    ]);
    expect(toast.success).toHaveBeenCalledWith(
      'Merged “A. Lovelace” into Ada Lovelace',
      expect.objectContaining({
        description: '2 observations and 2 relations moved; 1 repeat kept once.',
        action: expect.objectContaining({ label: 'Undo' }),
      }),
    );
    await waitFor(() =>
      expect(screen.queryByRole('article', { name: 'Ada Lovelace and A. Lovelace' })).toBeNull(),
    );
    expect(screen.getByRole('article', { name: 'Grace Hopper and G. Hopper' })).toBeInTheDocument();

    clickUndo('Merged “A. Lovelace” into Ada Lovelace');
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Merge undone'));
    expect(writes(requests).at(-1)?.path).toBe('/api/changes/77/revert');
    // The pair is proposed again once the list is read again.
    expect(await pairCard('Ada Lovelace and A. Lovelace')).toBeInTheDocument();
  });

  it('merges the other way round, and keeps a refusal in the dialog in the server’s words', async () => {
    const { requests } = duplicatesServer({
      merge: () => ({
        status: 409,
        body: { error: 'An entity named Ada Lovelace already exists', code: 'CONFLICT' },
      }),
    });
    const { user } = await openScreen();
    const card = await pairCard('Ada Lovelace and A. Lovelace');
    await user.click(within(card).getByRole('button', { name: 'Merge into A. Lovelace' }));
    const dialog = await screen.findByRole('dialog', { name: 'Merge into A. Lovelace?' });
    expect(dialog).toHaveAccessibleDescription(
      '5 observations and 4 relations move to A. Lovelace. “Ada Lovelace” is removed and becomes an alias.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Merge' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'An entity named Ada Lovelace already exists',
    );
    expect(writes(requests)[0]?.body).toEqual({ targetId: 'e-short', sourceIds: ['e-ada'] });
    // The pair stays, behind the dialog.
    expect(card).toBeInTheDocument();
  });

  it('Not the same dismisses the pair at once, and Undo takes the dismissal back', async () => {
    const { requests } = duplicatesServer();
    const { user } = await openScreen();
    const card = await pairCard('Grace Hopper and G. Hopper');
    await user.click(within(card).getByRole('button', { name: 'Not the same' }));
    await waitFor(() =>
      expect(screen.queryByRole('article', { name: 'Grace Hopper and G. Hopper' })).toBeNull(),
    );
    expect(writes(requests).map((request) => [request.path, request.body])).toEqual([
      ['/api/duplicates/dismiss', { entityIds: ['e-grace', 'e-hopper'] }],
    ]);
    expect(toast.success).toHaveBeenCalledWith(
      'Marked as not the same',
      expect.objectContaining({ action: expect.objectContaining({ label: 'Undo' }) }),
    );

    clickUndo('Marked as not the same');
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Pair restored'));
    expect(writes(requests).at(-1)).toMatchObject({
      path: '/api/duplicates/undismiss',
      body: { entityIds: ['e-grace', 'e-hopper'] },
    });
    expect(await pairCard('Grace Hopper and G. Hopper')).toBeInTheDocument();
  });

  it('says when there are none, and that the finder is still comparing', async () => {
    duplicatesServer({ pages: [[]], upToDate: false });
    await openScreen();
    expect(await screen.findByRole('heading', { name: 'No duplicates found' })).toBeInTheDocument();
    expect(screen.getByText(/Still comparing recent changes/)).toBeInTheDocument();
  });

  it('reads the next page by its cursor', async () => {
    const { requests } = duplicatesServer({ pages: [[ADA_PAIR], [GRACE_PAIR]] });
    const { user } = await openScreen();
    await pairCard('Ada Lovelace and A. Lovelace');
    expect(screen.getByText('1 pair so far')).toBeInTheDocument();
    expect(screen.queryByText(/Still comparing/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await pairCard('Grace Hopper and G. Hopper');
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    const reads = requests.filter((request) => request.path === '/api/duplicates');
    expect(reads.map((request) => request.query.get('cursor'))).toEqual([null, '1']);
    expect(reads.every((request) => request.query.get('limit') === '10')).toBe(true);
  });

  it('shows one entity’s pairs, with a way back to all of them', async () => {
    const { requests } = duplicatesServer();
    await openScreen('/duplicates?entity=e-grace');
    await pairCard('Grace Hopper and G. Hopper');
    expect(screen.queryByRole('article', { name: 'Ada Lovelace and A. Lovelace' })).toBeNull();
    expect(
      requests.find((request) => request.path === '/api/duplicates')?.query.get('entityId'),
    ).toBe('e-grace');
    expect(screen.getByRole('link', { name: 'Show all pairs' })).toHaveAttribute(
      'href',
      '/duplicates',
    );
  });

  it('says so when the list cannot be read', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/duplicates': () => ({
        status: 500,
        body: { error: 'Internal error', code: 'INTERNAL' },
      }),
    });
    await openScreen();
    // After the query client's two retries of a 5xx.
    expect(await screen.findByRole('alert', {}, { timeout: 8000 })).toHaveTextContent(
      'Failed to load duplicates',
    );
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('holds the buttons back for a viewer, and says why', async () => {
    const { requests } = duplicatesServer({ user: testUserAs('viewer') });
    await openScreen();
    const card = await pairCard('Ada Lovelace and A. Lovelace');
    const note = screen.getByTestId('duplicates-viewer-note');
    expect(note).toHaveTextContent("Viewers can read but not change this account's memory");
    for (const name of ['Merge into Ada Lovelace', 'Merge into A. Lovelace', 'Not the same']) {
      const button = within(card).getByRole('button', { name });
      expect(button).toBeDisabled();
      expect(button).toHaveAccessibleDescription(/Viewers can read but not change/);
    }
    expect(writes(requests)).toHaveLength(0);
  });
});
