import type { Entity, EntityVersion, HistoryChange, HistoryPage } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { InProcessLayoutWorker } from '@/components/graph-canvas/layout/in-process-worker';

const ALICIA: Entity = {
  id: 'e-alice',
  name: 'Alicia',
  type: 'person',
  aliases: [],
  metadata: {},
  observations: [
    {
      id: 'o1',
      content: 'Leads the platform team',
      createdAt: '2027-01-05T10:00:00.000Z',
      // When the fact held: shown muted beside the date (docs/history.md).
      validFrom: '2024-01',
      validTo: '2025-03',
    },
  ],
  observationsCount: 1,
  createdAt: '2027-01-05T10:00:00.000Z',
  updatedAt: '2027-01-06T10:00:00.000Z',
};

const V1: EntityVersion = {
  kind: 'entity',
  id: 'e-alice',
  name: 'Alice',
  type: 'person',
  metadata: {},
  aliases: [],
  observations: [],
};

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

const CHANGES: HistoryChange[] = [
  {
    seq: 12,
    callSeq: 11,
    type: 'observation_added',
    at: at(2),
    actor: {
      kind: 'api_key',
      id: 'k1',
      name: 'ci-agent',
      user: { id: 'u1', name: 'Ada Lovelace' },
    },
    space: 'default',
    before: { ...V1, name: 'Alicia' },
    after: {
      ...V1,
      name: 'Alicia',
      observations: [
        {
          id: 'o1',
          content: 'Leads the platform team',
          metadata: null,
          validFrom: null,
          validTo: null,
        },
      ],
    },
  },
  {
    seq: 11,
    callSeq: 11,
    type: 'entity_updated',
    at: at(2),
    actor: {
      kind: 'api_key',
      id: 'k1',
      name: 'ci-agent',
      user: { id: 'u1', name: 'Ada Lovelace' },
    },
    space: 'default',
    before: V1,
    after: { ...V1, name: 'Alicia' },
  },
  {
    seq: 10,
    callSeq: 10,
    type: 'relation_created',
    at: at(30),
    // An app's change from before the change log named the person: the app alone.
    actor: { kind: 'oauth', id: 'c1', name: 'Claude', user: null },
    space: 'default',
    before: null,
    after: {
      kind: 'relation',
      id: 'r1',
      fromEntityId: 'e-alice',
      toEntityId: 'e-bob',
      fromEntityName: 'Alice',
      toEntityName: 'Bob',
      relationType: 'knows',
      validFrom: null,
      validTo: null,
    },
  },
];

const CREATED: HistoryChange = {
  seq: 1,
  callSeq: 1,
  type: 'entity_created',
  at: at(60 * 24 * 2),
  actor: { kind: 'user', id: 'u1', name: 'Ada Lovelace', user: { id: 'u1', name: 'Ada Lovelace' } },
  space: 'default',
  before: null,
  after: V1,
};

type Reply = { status: number; body?: unknown };

function historyServer(
  revert: (request: FakeRequest) => Reply = () => ({
    status: 200,
    body: { reverted: { callSeq: 11, changes: 2 }, seqs: [13, 14] },
  }),
  user: object = TEST_USER,
) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: user }),
    'GET /api/entities/e-alice': () => ({ status: 200, body: ALICIA }),
    'GET /api/relations': () => ({
      status: 200,
      body: {
        relations: [
          {
            id: 'r1',
            fromEntityId: 'e-alice',
            toEntityId: 'e-bob',
            type: 'knows',
            relationType: 'knows',
            createdAt: '2027-02-01T10:00:00.000Z',
            fromEntity: { id: 'e-alice', name: 'Alicia', type: 'person' },
            toEntity: { id: 'e-bob', name: 'Bob', type: 'person' },
            validFrom: '2020-06-01',
          },
        ],
        total: 1,
        nextOffset: null,
        truncated: false,
      },
    }),
    'GET /api/relations/graph/data': () => ({ status: 200, body: { entities: [], relations: [] } }),
    'GET /api/entities/e-alice/history': (request): Reply => {
      const page: HistoryPage =
        request.query.get('cursor') === 'older'
          ? { changes: [CREATED], nextCursor: null }
          : { changes: CHANGES, nextCursor: 'older' };
      return { status: 200, body: page };
    },
    'POST /api/changes/11/revert': revert,
    'POST /api/changes/12/revert': revert,
  });
}

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
});

async function openHistory() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/entities/e-alice');
  await user.click(await screen.findByRole('tab', { name: 'History' }, { timeout: 5000 }));
  const list = await screen.findByRole('list', { name: 'Changes' }, { timeout: 5000 });
  return { user, list, ...app };
}

describe('Entity History tab', { timeout: 20_000 }, () => {
  it('shows validity beside observations and relations on the Overview', async () => {
    historyServer();
    renderApp('/entities/e-alice');
    const observations = await screen.findByRole(
      'list',
      { name: 'Observations' },
      { timeout: 5000 },
    );
    expect(observations).toHaveTextContent('valid Jan 2024 → Mar 2025');
    const [row] = await screen.findAllByTestId('relationship');
    expect(row).toHaveTextContent('valid from Jun 1, 2020');
  });

  it('lists the changes newest first with who, when and what changed; Load more pages on', async () => {
    const { requests } = historyServer();
    const { user, list, router } = await openHistory();
    expect(router.state.location.search).toBe('?tab=history');
    const rows = within(list).getAllByTestId('history-change');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toHaveTextContent('Added observation');
    // The person, beside the key they made.
    expect(rows[0]).toHaveTextContent('Ada Lovelace via key ‘ci-agent’');
    expect(rows[0]).toHaveTextContent('2 minutes ago');
    expect(rows[0]).toHaveTextContent('one of 2 changes in a call');
    expect(within(rows[0]!).getByRole('list', { name: 'What changed' })).toHaveTextContent(
      '+Added: Leads the platform team',
    );
    expect(rows[1]).toHaveTextContent('Renamed Alice → Alicia');
    expect(rows[1]).toHaveTextContent('NameAlice→changed toAlicia');
    expect(rows[2]).toHaveTextContent('Related to Bob (Knows)');
    expect(rows[2]).toHaveTextContent('Claude');
    expect(rows[2]).not.toHaveTextContent('via');
    const time = within(rows[2]!).getByText('30 minutes ago');
    expect(time).toHaveAttribute('title');
    expect(time).toHaveAttribute('datetime', CHANGES[2]!.at);

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(list).getAllByTestId('history-change')).toHaveLength(4));
    expect(within(list).getAllByTestId('history-change')[3]).toHaveTextContent('Created');
    expect(within(list).getAllByTestId('history-change')[3]).toHaveTextContent('Ada Lovelace');
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    const pages = requests.filter((request) => request.path === '/api/entities/e-alice/history');
    expect(pages.map((request) => request.query.get('cursor'))).toEqual([null, 'older']);
  });

  it('reverts the call after confirming, then refreshes the entity and its history', async () => {
    const { requests } = historyServer();
    const { user, list } = await openHistory();
    const renamed = within(list).getAllByTestId('history-change')[1]!;
    await user.click(within(renamed).getByRole('button', { name: /^Revert/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Revert this change?' });
    expect(dialog).toHaveTextContent('undoes the whole call');
    expect(dialog).toHaveTextContent('The call made 2 changes listed here');
    const before = requests.length;
    await user.click(within(dialog).getByRole('button', { name: 'Revert' }));
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith('Reverted 2 changes'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const after = requests.slice(before).map((request) => `${request.method} ${request.path}`);
    expect(after).toContain('POST /api/changes/11/revert');
    await waitFor(() => {
      const later = requests.slice(before).map((request) => request.path);
      expect(later).toContain('/api/entities/e-alice/history');
      expect(later).toContain('/api/entities/e-alice');
    });
  });

  it('offers a viewer no Revert', async () => {
    historyServer(undefined, testUserAs('viewer'));
    const { list } = await openHistory();
    expect(within(list).getAllByTestId('history-change')).toHaveLength(3);
    expect(within(list).queryByRole('button', { name: /Revert/ })).not.toBeInTheDocument();
  });

  it('shows a conflict and what differs, keeping the dialog open', async () => {
    historyServer(() => ({
      status: 409,
      body: {
        error:
          'Cannot revert: something it changed has changed since (entity "Alicia" changed at seq:15, after this call)',
        code: 'CONFLICT',
        details: [
          {
            field: 'entity:e-alice',
            message: 'entity "Alicia" changed at seq:15, after this call',
          },
        ],
      },
    }));
    const { user, list } = await openHistory();
    await user.click(
      within(within(list).getAllByTestId('history-change')[0]!).getByRole('button', {
        name: /^Revert/,
      }),
    );
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Revert' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(/^Cannot revert: something it changed has changed since/);
    expect(within(alert).getByRole('list', { name: 'What changed since' })).toHaveTextContent(
      'entity "Alicia" changed at seq:15, after this call',
    );
    expect(toast.success).not.toHaveBeenCalled();
  });

  it('keeps the list when an older page fails to load', async () => {
    const server = historyServer();
    const { user, list } = await openHistory();
    const inner = server.fetchMock.getMockImplementation()!;
    server.fetchMock.mockImplementation(async (input, init) =>
      String(input).includes('cursor=older')
        ? new Response(JSON.stringify({ error: 'Bad cursor', code: 'VALIDATION_FAILED' }), {
            status: 400,
          })
        : inner(input, init),
    );
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('Failed to load older changes.')).toBeInTheDocument();
    expect(within(list).getAllByTestId('history-change')).toHaveLength(3);
  });

  it('says why the history could not be read', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({
      'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
      'GET /api/entities/e-alice': () => ({ status: 200, body: ALICIA }),
      'GET /api/entities/e-alice/history': () => ({
        status: 500,
        body: { error: 'Database unavailable', code: 'internal' },
      }),
    });
    const user = userEvent.setup({ delay: null });
    renderApp('/entities/e-alice?tab=history');
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent(
      'Failed to load history: Database unavailable',
    );
    expect(screen.getByRole('tab', { name: 'History' })).toHaveAttribute('aria-selected', 'true');
    await user.click(screen.getByRole('tab', { name: 'Overview' }));
    expect(await screen.findByRole('heading', { name: 'Observations' })).toBeInTheDocument();
  });
});
