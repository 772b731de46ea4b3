import type { Entity } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { typePages } from '@/test/fake-type-pages';
import { renderApp } from '@/test/render-app';

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

beforeEach(() => {
  vi.spyOn(toast, 'success');
  vi.spyOn(toast, 'error');
});

function entity(overrides: Partial<Entity> = {}): Entity {
  return {
    id: 'e1',
    name: 'Ada Lovelace',
    type: 'person',
    aliases: [],
    metadata: { born: 1815, field: 'mathematics', country: 'UK', language: 'English' },
    observations: [
      { id: 'o1', content: 'Wrote the first program', createdAt: '2027-01-05T10:00:00.000Z' },
      { id: 'o2', content: 'Worked with Babbage', createdAt: '2027-01-05T10:01:00.000Z' },
    ],
    observationsCount: 2,
    createdAt: '2027-01-05T10:00:00.000Z',
    updatedAt: '2027-01-05T10:00:00.000Z',
    ...overrides,
  };
}

/** A signed-in session (TEST_USER unless `user`) against a fake graph API holding `entities`. */
function entitiesServer(entities: Entity[], user: object = TEST_USER) {
  localStorage.setItem('auth_token', 'valid-token');
  const list = () => ({
    status: 200,
    body: {
      entities,
      total: entities.length,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    },
  });
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: user }),
    'GET /api/entities': list,
    'GET /api/entities/types': () => ({
      status: 200,
      body: {
        types: [{ type: 'person', label: 'Person', count: entities.length }],
        nextCursor: null,
      },
    }),
    'GET /api/entities/e1': () => ({ status: 200, body: entities[0] }),
    'POST /api/entities': (request) => ({
      status: 201,
      body: entity({ ...(request.body as Partial<Entity>), id: 'e2', observations: [] }),
    }),
    'PUT /api/entities/e1': () => ({ status: 200, body: entities[0] }),
  });
}

const writes = (requests: FakeRequest[]) => requests.filter((request) => request.method !== 'GET');

async function openScreen(path = '/entities') {
  const user = userEvent.setup({ delay: null });
  const app = renderApp(path);
  // Hidden too: an open dialog hides the page from assistive technology.
  await screen.findByRole(
    'heading',
    { level: 1, name: 'Entity Management', hidden: true },
    { timeout: 5000 },
  );
  return { user, ...app };
}

describe('Entity Management screen', { timeout: 20_000 }, () => {
  it('shows a card with name, type, observations, date and at most 3 metadata pairs', async () => {
    entitiesServer([entity()]);
    await openScreen();
    const card = await screen.findByRole('article', { name: 'Ada Lovelace' });
    expect(within(card).getByText('person')).toBeInTheDocument();
    expect(within(card).getByText('2 observations')).toBeInTheDocument();
    expect(within(card).getByText('Jan 5, 2027')).toBeInTheDocument();
    expect(
      within(card)
        .getAllByRole('term')
        .map((term) => term.textContent),
    ).toEqual(['born:', 'field:', 'country:']);
    expect(screen.getByText('1 entity')).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'Ada Lovelace' })).toHaveAttribute(
      'href',
      '/entities/e1',
    );
  });

  it('Load more asks for the page after the last card by the cursor it was given', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    const first = entity();
    const second = entity({ id: 'e2', name: 'Grace Hopper' });
    const { requests } = fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/entities': (request) => {
        const next = request.query.get('cursor') === 'after-e1';
        return {
          status: 200,
          body: {
            entities: [next ? second : first],
            total: 2,
            nextOffset: next ? null : 1,
            truncated: false,
            nextCursor: next ? null : 'after-e1',
          },
        };
      },
      'GET /api/entities/types': () => ({ status: 200, body: { types: [], nextCursor: null } }),
    });
    const { user } = await openScreen();
    await screen.findByRole('article', { name: 'Ada Lovelace' });
    expect(screen.getByText('Showing 1 of 2')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('article', { name: 'Grace Hopper' });
    expect(screen.getByRole('article', { name: 'Ada Lovelace' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    const pages = requests.filter((request) => request.path === '/api/entities');
    expect(pages.map((request) => request.query.get('cursor'))).toEqual([null, 'after-e1']);
    expect(pages.every((request) => !request.query.has('offset'))).toBe(true);
  });

  it('Refresh reads the list and the type counts again', async () => {
    const { requests } = entitiesServer([entity()]);
    const { user } = await openScreen();
    await screen.findByRole('article', { name: 'Ada Lovelace' });
    const reads = () => requests.filter((request) => request.path.startsWith('/api/entities'));
    const before = reads().length;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(reads().length).toBe(before + 2));
  });

  it('shows the empty state', async () => {
    entitiesServer([]);
    await openScreen();
    expect(await screen.findByText('No entities found')).toBeInTheDocument();
    expect(screen.getByText('Create your first entity to get started')).toBeInTheDocument();
  });

  it('opens Create Entity on ?create=1 and sends nothing while a rule is broken', async () => {
    const { requests } = entitiesServer([]);
    const { user, router } = await openScreen('/entities?create=1');
    const dialog = await screen.findByRole('dialog', { name: 'Create Entity' });
    await waitFor(() => expect(router.state.location.search).toBe(''));
    const submit = within(dialog).getByRole('button', { name: 'Create Entity' });

    // One observation box to start, and no remove button until there are two.
    expect(within(dialog).getAllByRole('textbox', { name: /^Observation/ })).toHaveLength(1);
    expect(within(dialog).queryByRole('button', { name: /Remove observation/ })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Add Observation' }));
    expect(within(dialog).getAllByRole('button', { name: /Remove observation/ })).toHaveLength(2);
    await user.click(within(dialog).getByRole('button', { name: 'Remove observation 2' }));
    expect(within(dialog).queryByRole('button', { name: /Remove observation/ })).toBeNull();

    // One submit shows every broken rule, in the documented order, and focuses the first.
    await user.type(within(dialog).getByLabelText('Metadata (JSON)'), '{{"born": 1906');
    await user.click(submit);
    const messages = ['Name is required', 'Type is required', 'Invalid JSON format'];
    const shown = messages.map((message) => within(dialog).getByText(message));
    for (let i = 1; i < shown.length; i++) {
      expect(shown[i - 1]!.compareDocumentPosition(shown[i]!)).toBe(
        Node.DOCUMENT_POSITION_FOLLOWING,
      );
    }
    expect(within(dialog).getByLabelText('Name')).toHaveFocus();
    expect(within(dialog).getByLabelText('Name')).toHaveAccessibleDescription('Name is required');

    // Fixing a field clears its error only; the others stay until fixed.
    await user.type(within(dialog).getByLabelText('Name'), '  Grace  ');
    expect(within(dialog).queryByText('Name is required')).toBeNull();
    expect(within(dialog).getByText('Type is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Invalid JSON format')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('combobox', { name: 'Type' }));
    await user.click(await screen.findByRole('option', { name: 'person' }));
    expect(within(dialog).queryByText('Type is required')).toBeNull();
    await user.click(submit);
    expect(within(dialog).getByText('Invalid JSON format')).toBeInTheDocument();
    expect(within(dialog).queryByText('Name is required')).toBeNull();
    expect(within(dialog).getByLabelText('Metadata (JSON)')).toHaveFocus();
    expect(writes(requests)).toEqual([]);

    await user.clear(within(dialog).getByLabelText('Metadata (JSON)'));
    await user.type(within(dialog).getByLabelText('Metadata (JSON)'), '{{"born": 1906}');
    await user.type(within(dialog).getByRole('textbox', { name: 'Observation 1' }), 'COBOL');
    await user.click(within(dialog).getByRole('button', { name: 'Add Observation' }));
    await user.click(submit);
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]).toMatchObject({
      method: 'POST',
      path: '/api/entities',
      body: { name: 'Grace', type: 'person', metadata: { born: 1906 }, observations: ['COBOL'] },
    });
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Entity created successfully'));
  });

  it('Custom Type... reveals a text input whose value is the type', async () => {
    const { requests } = entitiesServer([]);
    const { user } = await openScreen('/entities?create=1');
    const dialog = await screen.findByRole('dialog', { name: 'Create Entity' });
    await user.type(within(dialog).getByLabelText('Name'), 'HAL');
    expect(within(dialog).queryByRole('textbox', { name: 'Custom type' })).toBeNull();
    await user.click(within(dialog).getByRole('combobox', { name: 'Type' }));
    await user.click(await screen.findByRole('option', { name: 'Custom Type...' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Custom type' }), ' robot ');
    await user.click(within(dialog).getByRole('button', { name: 'Create Entity' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]?.body).toMatchObject({ name: 'HAL', type: 'robot' });
  });

  it('an edit that leaves the observations alone does not send them; one that changes them sends the list', async () => {
    const { requests } = entitiesServer([entity()]);
    const { user } = await openScreen();
    const card = await screen.findByRole('article', { name: 'Ada Lovelace' });

    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit Entity' }));
    let dialog = await screen.findByRole('dialog', { name: 'Edit Entity' });
    const name = await within(dialog).findByLabelText('Name');
    expect(name).toHaveValue('Ada Lovelace');
    await user.clear(name);
    await user.type(name, 'Ada King');
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]?.body).toEqual({
      name: 'Ada King',
      type: 'person',
      metadata: { born: 1815, field: 'mathematics', country: 'UK', language: 'English' },
    });
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Entity updated successfully'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit Entity' }));
    dialog = await screen.findByRole('dialog', { name: 'Edit Entity' });
    await within(dialog).findByLabelText('Name');
    await user.click(within(dialog).getByRole('button', { name: 'Remove observation 1' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(2));
    expect(writes(requests)[1]?.body).toMatchObject({ observations: ['Worked with Babbage'] });
  });

  it('asks before deleting, naming the entity', async () => {
    entitiesServer([entity()]);
    const { user } = await openScreen();
    const card = await screen.findByRole('article', { name: 'Ada Lovelace' });
    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete Entity' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Entity' });
    expect(
      within(dialog).getByText('Are you sure you want to delete "Ada Lovelace"?'),
    ).toBeInTheDocument();
  });

  it('the type filter shows the first page of many types and searches the server as one types', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    // 250 types, most common first: 'kind-000' (250), 'kind-001' (249), …
    const many = Array.from({ length: 250 }, (_, i) => ({
      type: `kind-${String(i).padStart(3, '0')}`,
      count: 250 - i,
    }));
    const { requests } = fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/entities': () => ({
        status: 200,
        body: { entities: [], total: 0, nextOffset: null, truncated: false, nextCursor: null },
      }),
      'GET /api/entities/types': typePages(many),
    });
    const { user, router } = await openScreen();
    const typeReads = () => requests.filter((request) => request.path === '/api/entities/types');

    await user.click(screen.getByRole('combobox', { name: 'Entity type' }));
    const list = await screen.findByRole('listbox');
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(101));
    expect(within(list).getAllByRole('option')[0]).toHaveTextContent('All Types');
    expect(within(list).getAllByRole('option')[1]).toHaveTextContent('Kind 000 (250)');

    await user.click(screen.getByRole('button', { name: 'Load more types' }));
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(201));
    expect(typeReads().at(-1)?.query.get('cursor')).toBe('100');

    // Typing asks the server for the types starting with the text, in any case.
    await user.type(screen.getByRole('combobox', { name: 'Search entity types' }), 'KIND-24');
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(11));
    expect(typeReads().at(-1)?.query.get('prefix')).toBe('KIND-24');
    expect(screen.queryByRole('button', { name: 'Load more types' })).toBeNull();
    await user.click(within(list).getByRole('option', { name: 'Kind 245 (5)' }));
    await waitFor(() => expect(router.state.location.search).toBe('?type=kind-245'));
    // Not on the first page: the closed filter names the type.
    expect(screen.getByRole('combobox', { name: 'Entity type' })).toHaveTextContent('Kind 245');

    await user.click(screen.getByRole('combobox', { name: 'Entity type' }));
    await user.type(await screen.findByRole('combobox', { name: 'Search entity types' }), 'zzz');
    expect(await screen.findByText('No types start with this text')).toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: 'All Types' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('the form’s type picker searches the server; Custom Type... starts from the search', async () => {
    const many = Array.from({ length: 150 }, (_, i) => ({ type: `robot-${i}`, count: 1 }));
    localStorage.setItem('auth_token', 'valid-token');
    const { requests } = fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/entities': () => ({
        status: 200,
        body: { entities: [], total: 0, nextOffset: null, truncated: false, nextCursor: null },
      }),
      'GET /api/entities/types': typePages([{ type: 'person', count: 3 }, ...many]),
      'POST /api/entities': (request) => ({
        status: 201,
        body: entity({ ...(request.body as Partial<Entity>), id: 'e2', observations: [] }),
      }),
    });
    const { user } = await openScreen('/entities?create=1');
    const dialog = await screen.findByRole('dialog', { name: 'Create Entity' });
    await user.type(within(dialog).getByLabelText('Name'), 'HAL');

    await user.click(within(dialog).getByRole('combobox', { name: 'Type' }));
    const search = await screen.findByRole('combobox', { name: 'Search types' });
    await user.type(search, 'Robot-14');
    // The server's robot-14, robot-140…149, then no known type starts so; Custom Type... last.
    await waitFor(() =>
      expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
        'robot-14',
        ...Array.from({ length: 10 }, (_, i) => `robot-14${i}`),
        'Custom Type...',
      ]),
    );
    await user.clear(search);
    await user.type(search, 'co');
    await waitFor(() =>
      expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
        'concept',
        'company',
        'Custom Type...',
      ]),
    );
    await user.type(search, 'bot');
    await screen.findByText('No types start with this text');
    await user.click(screen.getByRole('option', { name: 'Custom Type...' }));
    const custom = within(dialog).getByRole('textbox', { name: 'Custom type' });
    expect(custom).toHaveValue('cobot');
    await user.click(within(dialog).getByRole('button', { name: 'Create Entity' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]?.body).toMatchObject({ name: 'HAL', type: 'cobot' });
  });

  it('offers a viewer no create, edit or delete, and says they read only', async () => {
    const { requests } = entitiesServer([entity()], testUserAs('viewer'));
    const { user } = await openScreen('/entities?create=1');
    const card = await screen.findByRole('article', { name: 'Ada Lovelace' });
    expect(
      screen.getByText("Viewers can read but not change this account's memory"),
    ).toBeInTheDocument();
    // ?create=1 (the dashboard's quick action) opens nothing either.
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Create Entity' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();

    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    expect((await screen.findAllByRole('menuitem')).map((item) => item.textContent)).toEqual([
      'View Details',
    ]);
    await user.click(screen.getByRole('menuitem', { name: 'View Details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ada Lovelace' });
    expect(within(dialog).getByText('Wrote the first program')).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Edit Entity' })).toBeNull();
    expect(writes(requests)).toEqual([]);
  });

  it('offers a viewer no Create Entity in the empty state', async () => {
    entitiesServer([], testUserAs('viewer'));
    await openScreen();
    expect(await screen.findByText('No entities found')).toBeInTheDocument();
    expect(screen.getByText('This space has no entities yet')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create Entity' })).toBeNull();
  });

  it('offers a member everything an owner has', async () => {
    entitiesServer([entity()], testUserAs('member'));
    const { user } = await openScreen();
    const card = await screen.findByRole('article', { name: 'Ada Lovelace' });
    expect(screen.getByRole('button', { name: 'Create Entity' })).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Actions for Ada Lovelace' }));
    expect((await screen.findAllByRole('menuitem')).map((item) => item.textContent)).toEqual([
      'View Details',
      'Edit Entity',
      'Delete Entity',
    ]);
  });

  it('toasts Failed to load entities when the list cannot be read', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/entities': () => ({
        status: 400,
        body: { error: 'Bad', code: 'VALIDATION_ERROR' },
      }),
      'GET /api/entities/types': () => ({ status: 200, body: { types: [], nextCursor: null } }),
    });
    await openScreen();
    expect(await screen.findByText('Failed to load entities')).toBeInTheDocument();
    expect(toast.error).toHaveBeenCalledWith('Failed to load entities');
    expect(screen.queryByText('No entities found')).toBeNull();
  });
});

describe(
  'Review duplicates on the Entity Management screen (issue 59)',
  { timeout: 20_000 },
  () => {
    const pair = (n: number) => ({
      id: `pair-${n}`,
      score: 0.9,
      reasons: ['same type'],
      entities: [
        { id: `a${n}`, name: `A${n}`, type: 'person', observationsCount: 0, relationsCount: 0 },
        { id: `b${n}`, name: `B${n}`, type: 'person', observationsCount: 0, relationsCount: 0 },
      ],
    });

    /** The list of `entitiesServer` with GET /api/duplicates answering `count` pairs. */
    function withDuplicates(count: number, nextCursor: string | null = null) {
      localStorage.setItem('auth_token', 'valid-token');
      return fakeServer({
        'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
        'GET /api/entities': () => ({
          status: 200,
          body: {
            entities: [entity()],
            total: 1,
            nextOffset: null,
            truncated: false,
            nextCursor: null,
          },
        }),
        'GET /api/entities/types': () => ({ status: 200, body: { types: [], nextCursor: null } }),
        'GET /api/duplicates': () => ({
          status: 200,
          body: {
            candidates: Array.from({ length: count }, (_, index) => pair(index)),
            nextCursor,
            upToDate: true,
          },
        }),
      });
    }

    it('links to /duplicates with the number of pairs on the first page of 100', async () => {
      const { requests } = withDuplicates(3);
      await openScreen();
      const link = await screen.findByRole('link', { name: 'Review duplicates (3)' });
      expect(link).toHaveAttribute('href', '/duplicates');
      const read = requests.find((request) => request.path === '/api/duplicates');
      expect(read?.query.get('limit')).toBe('100');
    });

    it('says 100+ when more pairs follow that page', async () => {
      withDuplicates(100, 'next');
      await openScreen();
      expect(await screen.findByRole('link', { name: 'Review duplicates (100+)' })).toBeVisible();
    });

    it('shows nothing while there are none', async () => {
      const { requests } = withDuplicates(0);
      await openScreen();
      await screen.findByRole('article', { name: 'Ada Lovelace' });
      await waitFor(() =>
        expect(requests.some((request) => request.path === '/api/duplicates')).toBe(true),
      );
      expect(screen.queryByRole('link', { name: /Review duplicates/ })).toBeNull();
    });
  },
);
