import type { Entity, Relation } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InProcessLayoutWorker } from '@/components/graph-canvas/layout/in-process-worker';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

// Issue 58, items 9 and 10: the entity page's Edit, Add observation and
// Delete (none for a viewer), its metadata, and the delete's Undo.

const ADA: Entity = {
  id: 'e-ada',
  name: 'Ada Lovelace',
  type: 'person',
  aliases: [],
  metadata: { zeta: 'last given first', born: 1815, works: { notes: 'G' } },
  observations: [
    { id: 'o1', content: 'Wrote the first program', createdAt: '2027-01-05T10:00:00.000Z' },
    { id: 'o2', content: 'Worked with Babbage', createdAt: '2027-01-06T10:00:00.000Z' },
    { id: 'o3', content: 'Translated Menabrea', createdAt: '2027-01-07T10:00:00.000Z' },
  ],
  observationsCount: 3,
  createdAt: '2027-01-05T10:00:00.000Z',
  updatedAt: '2027-01-06T10:00:00.000Z',
};

const end = (id: string, name: string) => ({ id, name, type: 'person' });
const RELATIONS: Relation[] = ['r1', 'r2'].map((id, index) => ({
  id,
  fromEntityId: 'e-ada',
  toEntityId: `e-${index}`,
  type: 'knew',
  relationType: 'knew',
  createdAt: '2027-02-01T10:00:00.000Z',
  fromEntity: end('e-ada', 'Ada Lovelace'),
  toEntity: end(`e-${index}`, `Friend ${index}`),
}));

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
  vi.stubGlobal(
    'Worker',
    class extends InProcessLayoutWorker {
      constructor(_url: URL, _options?: WorkerOptions) {
        super();
      }
    },
  );
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
  vi.spyOn(toast, 'success');
  vi.spyOn(toast, 'error');
});

function server(user: object = TEST_USER) {
  localStorage.setItem('auth_token', 'valid-token');
  let deleted = false;
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: user }),
    'GET /api/entities/e-ada': () =>
      deleted
        ? { status: 404, body: { error: 'Entity not found', code: 'NOT_FOUND' } }
        : { status: 200, body: ADA },
    'GET /api/entities': () => ({
      status: 200,
      body: { entities: [], total: 0, nextOffset: null, truncated: false, nextCursor: null },
    }),
    'GET /api/entities/types': () => ({ status: 200, body: { types: [], nextCursor: null } }),
    'GET /api/relations': () => ({
      status: 200,
      body: { relations: RELATIONS, total: 2, nextOffset: null, truncated: false },
    }),
    'GET /api/relations/graph/data': () => ({
      status: 200,
      body: {
        entities: [{ ...end('e-ada', 'Ada Lovelace'), observationsCount: 3 }],
        relations: [],
      },
    }),
    'POST /api/entities/e-ada/observations': (request) => ({
      status: 201,
      body: {
        entity: ADA,
        added: (request.body as { observations: string[] }).observations.map((content) => ({
          id: 'o-new',
          content,
          createdAt: '2027-03-01T10:00:00.000Z',
        })),
      },
    }),
    'DELETE /api/entities/e-ada': () => {
      deleted = true;
      return { status: 200, body: { success: true, callSeq: 41 } };
    },
    'POST /api/changes/41/revert': () => {
      deleted = false;
      return { status: 200, body: { reverted: { callSeq: 41, changes: 1 }, seqs: [50] } };
    },
  });
}

const writes = (requests: FakeRequest[]) => requests.filter((request) => request.method !== 'GET');

async function openAda() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/entities/e-ada');
  await screen.findByRole('heading', { level: 1, name: 'Ada Lovelace' }, { timeout: 5000 });
  return { user, ...app };
}

describe('the entity page changes the entity', { timeout: 20_000 }, () => {
  it('shows the metadata, key by key in the order stored', async () => {
    server();
    await openAda();
    const card = screen.getByRole('region', { name: 'Metadata' });
    expect(
      within(card)
        .getAllByRole('term')
        .map((term) => term.textContent),
    ).toEqual(['zeta', 'born', 'works']);
    expect(
      within(card)
        .getAllByRole('definition')
        .map((value) => value.textContent),
    ).toEqual(['last given first', '1815', '{"notes":"G"}']);
  });

  it('opens Edit Entity with the entity', async () => {
    server();
    const { user } = await openAda();
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Entity' });
    expect(await within(dialog).findByLabelText('Name')).toHaveValue('Ada Lovelace');
  });

  it('adds an observation, trimmed, and refuses a blank one', async () => {
    const { requests } = server();
    const { user } = await openAda();
    await user.click(screen.getByRole('button', { name: 'Add observation' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Observation' });
    await user.click(within(dialog).getByRole('button', { name: 'Add Observation' }));
    expect(within(dialog).getByText('Observation cannot be empty')).toBeInTheDocument();
    expect(writes(requests)).toHaveLength(0);

    await user.type(within(dialog).getByLabelText('Observation'), '  Died in 1852  ');
    await user.click(within(dialog).getByRole('button', { name: 'Add Observation' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]?.body).toEqual({ observations: ['Died in 1852'] });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(toast.success).toHaveBeenCalledWith('Observation added successfully');
  });

  it('deletes after the question and what goes with it, goes to /entities, and Undo reverts the call', async () => {
    const { requests } = server();
    const { user, router } = await openAda();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Entity' });
    expect(
      within(dialog).getByText('Are you sure you want to delete "Ada Lovelace"?'),
    ).toBeInTheDocument();
    expect(
      await within(dialog).findByText(
        'It has 3 observations and 2 relations; they are deleted with it.',
      ),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/entities'));
    expect(toast.success).toHaveBeenCalledWith(
      'Entity deleted successfully',
      expect.objectContaining({ action: expect.objectContaining({ label: 'Undo' }) }),
    );
    // The notice's Undo (the toaster is the app shell's; here its action is called as a click would).
    const notice = vi
      .mocked(toast.success)
      .mock.calls.find(([message]) => message === 'Entity deleted successfully');
    const action = notice?.[1]?.action as { onClick: (event: unknown) => void };
    action.onClick({});
    await waitFor(() =>
      expect(
        requests.some(
          (request) => request.method === 'POST' && request.path === '/api/changes/41/revert',
        ),
      ).toBe(true),
    );
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Delete undone'));
  });

  it('offers a viewer no Edit, Add observation or Delete', async () => {
    server(testUserAs('viewer'));
    await openAda();
    expect(screen.getByRole('region', { name: 'Metadata' })).toBeInTheDocument();
    for (const name of ['Edit', 'Add observation', 'Delete']) {
      expect(screen.queryByRole('button', { name })).toBeNull();
    }
  });
});
