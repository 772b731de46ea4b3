import type { Entity, Relation } from '@engram/shared';
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

const entity = (id: string, name: string, type: string): Entity => ({
  id,
  name,
  type,
  aliases: [],
  metadata: {},
  observations: [],
  observationsCount: 0,
  createdAt: '2027-01-05T10:00:00.000Z',
  updatedAt: '2027-01-05T10:00:00.000Z',
});

const ENTITIES = [
  entity('ada', 'Ada Lovelace', 'person'),
  entity('engram', 'Engram', 'product'),
  entity('babbage', 'Charles Babbage', 'person'),
];

const relation = (id: string, from: Entity, type: string, to: Entity): Relation => ({
  id,
  fromEntityId: from.id,
  toEntityId: to.id,
  type,
  relationType: type,
  createdAt: '2027-01-06T10:00:00.000Z',
  fromEntity: { id: from.id, name: from.name, type: from.type },
  toEntity: { id: to.id, name: to.name, type: to.type },
});

function relationsServer(relations: Relation[], user: object = TEST_USER) {
  localStorage.setItem('auth_token', 'valid-token');
  const server = fakeServer({
    'GET /auth/me': () => ({ status: 200, body: user }),
    'GET /api/relations': () => ({
      status: 200,
      body: { relations, total: relations.length, nextOffset: null, truncated: false },
    }),
    'GET /api/relations/types': () => ({
      status: 200,
      body: {
        types: [
          { type: 'collaborated_with', label: 'Collaborated with', count: 1 },
          { type: 'uses', label: 'Uses', count: 2 },
        ],
        nextCursor: null,
      },
    }),
    'GET /api/entities': () => ({
      status: 200,
      body: { entities: ENTITIES, total: 3, nextOffset: null, truncated: false, nextCursor: null },
    }),
    'POST /api/relations': (request) => {
      const body = request.body as { fromEntityId: string; toEntityId: string; type: string };
      const find = (id: string) => ENTITIES.find((candidate) => candidate.id === id)!;
      return {
        status: 201,
        body: relation('r-new', find(body.fromEntityId), body.type, find(body.toEntityId)),
      };
    },
    'PUT /api/relations/r1': (request) => ({
      status: 200,
      body: { ...relations[0], ...(request.body as object) },
    }),
    'DELETE /api/relations/r1': () => ({ status: 200, body: { success: true, callSeq: 7 } }),
    'POST /api/changes/7/revert': () => ({
      status: 200,
      body: { reverted: { callSeq: 7, changes: 1 }, seqs: [8] },
    }),
  });
  return server;
}

const writes = (requests: FakeRequest[]) => requests.filter((request) => request.method !== 'GET');

async function openScreen() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/relations');
  await screen.findByRole('heading', { level: 1, name: 'Relation Management' }, { timeout: 5000 });
  return { user, ...app };
}

/** The entity pickers search the server after a pause in typing. */
async function pick(
  user: ReturnType<typeof userEvent.setup>,
  dialog: HTMLElement,
  label: string,
  name: string,
) {
  await user.click(within(dialog).getByRole('button', { name: label }));
  await user.click(await screen.findByRole('option', { name: new RegExp(`^${name}`) }));
}

describe('Relation Management screen', { timeout: 20_000 }, () => {
  it('shows the relations table and the type filter sorted by count', async () => {
    const [ada, engram, babbage] = ENTITIES as [Entity, Entity, Entity];
    relationsServer([
      relation('r1', ada, 'uses', engram),
      relation('r2', ada, 'collaborated_with', babbage),
      relation('r3', babbage, 'uses', engram),
    ]);
    const { user } = await openScreen();
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['From Entity', 'Relation', 'To Entity', 'Created', 'Actions']);
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(within(table).getAllByText('Collaborated with')).toHaveLength(1);
    expect(screen.getByText('3 relations')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Relation type' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual([
      'All Types',
      'Uses (2)',
      'Collaborated with (1)',
    ]);
    await user.keyboard('{Escape}');

    // The rows on screen follow each keystroke, before the server answers.
    await user.type(screen.getByRole('searchbox', { name: 'Search relations' }), 'BABBAGE');
    expect(within(table).getAllByRole('row')).toHaveLength(3);
  });

  it('the type filter shows the first page of many types and searches the server as one types', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    const many = Array.from({ length: 20_000 }, (_, i) => ({
      type: `rel_${String(i).padStart(5, '0')}`,
      count: i < 3 ? 3 - i + 1 : 1,
    }));
    const { requests } = fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/relations': () => ({
        status: 200,
        body: { relations: [], total: 0, nextOffset: null, truncated: false },
      }),
      'GET /api/relations/types': typePages(many),
    });
    const { user, router } = await openScreen();
    await user.click(screen.getByRole('combobox', { name: 'Relation type' }));
    const list = await screen.findByRole('listbox');
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(101));
    expect(
      within(list)
        .getAllByRole('option')
        .slice(0, 3)
        .map((option) => option.textContent),
    ).toEqual(['All Types', 'Rel 00000 (4)', 'Rel 00001 (3)']);
    expect(screen.getByRole('button', { name: 'Load more types' })).toBeInTheDocument();

    await user.type(screen.getByRole('combobox', { name: 'Search relation types' }), 'REL_1999');
    await waitFor(() => expect(within(list).getAllByRole('option')).toHaveLength(11));
    const reads = requests.filter((request) => request.path === '/api/relations/types');
    expect(reads.at(-1)?.query.get('prefix')).toBe('REL_1999');
    // Arrow keys move through the options; Enter picks.
    await user.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    await waitFor(() => expect(router.state.location.search).toBe('?type=rel_19991'));
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('checks the form rules in order; the picked source is disabled as the target', async () => {
    const { requests } = relationsServer([]);
    const { user } = await openScreen();
    expect(await screen.findByText('No relations found')).toBeInTheDocument();
    expect(screen.getByText('Create your first relation to get started')).toBeInTheDocument();

    await user.click(screen.getAllByRole('button', { name: 'Create Relation' })[0]!);
    const dialog = await screen.findByRole('dialog', { name: 'Create New Relation' });
    expect(
      within(dialog).getByText('Create a new relationship between two entities.'),
    ).toBeInTheDocument();
    const submit = within(dialog).getByRole('button', { name: 'Create Relation' });

    await user.click(submit);
    expect(within(dialog).getByText('Source entity is required')).toBeInTheDocument();
    await pick(user, dialog, 'Source Entity', 'Ada Lovelace');
    await user.click(submit);
    expect(within(dialog).getByText('Target entity is required')).toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: 'Target Entity' }));
    const ada = await screen.findByRole('option', { name: /^Ada Lovelace/ });
    expect(ada).toHaveAttribute('aria-disabled', 'true');
    await user.click(ada);
    expect(screen.getByRole('listbox')).toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: /^Engram/ }));

    await user.click(submit);
    expect(within(dialog).getByText('Relation type is required')).toBeInTheDocument();
    expect(writes(requests)).toEqual([]);

    // The account's relation types first, then the ten it does not use yet, then the free text.
    await user.click(within(dialog).getByRole('combobox', { name: 'Relation Type' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual([
      'Collaborated withcollaborated_with',
      'Usesuses',
      'Relates torelates_to',
      'Depends ondepends_on',
      'Part ofpart_of',
      'Enablesenables',
      'Based onbased_on',
      'Implementsimplements',
      'Extendsextends',
      'Containscontains',
      'Influencesinfluences',
      'Custom Type...',
    ]);
    await user.click(await screen.findByRole('option', { name: /^Depends on/ }));
    await user.click(submit);
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]).toMatchObject({
      method: 'POST',
      path: '/api/relations',
      body: { fromEntityId: 'ada', toEntityId: 'engram', type: 'depends_on' },
    });
    await waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Relation created successfully'),
    );
  });

  it('edits the type only: both pickers disabled, PUT {type}', async () => {
    const [ada, engram] = ENTITIES as [Entity, Entity];
    const { requests } = relationsServer([relation('r1', ada, 'mentors', engram)]);
    const { user } = await openScreen();
    await user.click(
      await screen.findByRole('button', { name: 'Actions for Ada Lovelace mentors Engram' }),
    );
    await user.click(await screen.findByRole('menuitem', { name: 'Edit Relation' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Relation' });
    expect(
      within(dialog).getByText('Update the relation type. Entity connections cannot be modified.'),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Source Entity' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Target Entity' })).toBeDisabled();
    // The current type is chosen in the type picker, as any type of the account is.
    const type = within(dialog).getByRole('combobox', { name: 'Relation Type' });
    expect(type).toHaveTextContent('Mentors');
    await user.click(type);
    await user.click(await screen.findByRole('option', { name: 'Custom Type...' }));
    const custom = within(dialog).getByRole('textbox', { name: 'Custom relation type' });
    await waitFor(() => expect(custom).toHaveFocus());
    await user.type(custom, ' taught ');
    await user.click(within(dialog).getByRole('button', { name: 'Update Relation' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]).toMatchObject({
      method: 'PUT',
      path: '/api/relations/r1',
      body: { type: 'taught' },
    });
    await waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Relation updated successfully'),
    );
  });

  it("deletes after asking; the spec's notice offers Undo, which reverts the delete's call", async () => {
    const [ada, engram] = ENTITIES as [Entity, Entity];
    const { requests } = relationsServer([relation('r1', ada, 'mentors', engram)]);
    const { user } = await openScreen();
    await user.click(
      await screen.findByRole('button', { name: 'Actions for Ada Lovelace mentors Engram' }),
    );
    await user.click(await screen.findByRole('menuitem', { name: 'Delete Relation' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Relation' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith(
        'Relation deleted successfully',
        expect.objectContaining({ action: expect.objectContaining({ label: 'Undo' }) }),
      ),
    );
    const notice = vi
      .mocked(toast.success)
      .mock.calls.find(([message]) => message === 'Relation deleted successfully');
    (notice?.[1]?.action as { onClick: (event: unknown) => void }).onClick({});
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Delete undone'));
    expect(writes(requests).map((request) => `${request.method} ${request.path}`)).toEqual([
      'DELETE /api/relations/r1',
      'POST /api/changes/7/revert',
    ]);
  });

  it('offers a viewer no create, edit or delete: no Actions column', async () => {
    const [ada, engram] = ENTITIES as [Entity, Entity, Entity];
    relationsServer([relation('r1', ada, 'uses', engram)], testUserAs('viewer'));
    await openScreen();
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['From Entity', 'Relation', 'To Entity', 'Created']);
    expect(within(table).queryByRole('button', { name: /^Actions for/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Create Relation' })).toBeNull();
    expect(
      screen.getByText("Viewers can read but not change this account's memory"),
    ).toBeInTheDocument();
  });
});
