import type { Entity, EntityAuthors, GraphData, Relation } from '@engram/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { InProcessLayoutWorker } from '@/components/graph-canvas/layout/in-process-worker';

const ADA: Entity = {
  id: 'e-ada',
  name: 'Ada Lovelace',
  type: 'person',
  aliases: [],
  metadata: {},
  observations: [
    {
      id: 'o1',
      content: 'Wrote the first published algorithm',
      createdAt: '2027-01-05T10:00:00.000Z',
    },
    {
      id: 'o2',
      content: 'Corresponded with Charles Babbage',
      createdAt: '2027-01-06T10:00:00.000Z',
      metadata: { source: 'letters' },
    },
  ],
  observationsCount: 2,
  createdAt: '2027-01-05T10:00:00.000Z',
  updatedAt: '2027-01-06T10:00:00.000Z',
};

const ENGINE = { id: 'e-engine', name: 'Analytical Engine', type: 'technology' };
const BABBAGE = { id: 'e-babbage', name: 'Charles Babbage', type: 'person' };

const RELATIONS: Relation[] = [
  {
    id: 'r1',
    fromEntityId: 'e-ada',
    toEntityId: 'e-engine',
    type: 'depends_on',
    relationType: 'depends_on',
    createdAt: '2027-02-01T10:00:00.000Z',
    fromEntity: { id: 'e-ada', name: 'Ada Lovelace', type: 'person' },
    toEntity: ENGINE,
  },
  {
    id: 'r2',
    fromEntityId: 'e-babbage',
    toEntityId: 'e-ada',
    type: 'mentored',
    relationType: 'mentored',
    createdAt: '2027-02-02T10:00:00.000Z',
    fromEntity: BABBAGE,
    toEntity: { id: 'e-ada', name: 'Ada Lovelace', type: 'person' },
  },
];

const GRAPH: GraphData = {
  entities: [
    { id: 'e-ada', name: 'Ada Lovelace', type: 'person', observationsCount: 2 },
    { ...ENGINE, observationsCount: 4 },
    { ...BABBAGE, observationsCount: 0 },
  ],
  relations: [
    {
      id: 'r1',
      fromEntityId: 'e-ada',
      toEntityId: 'e-engine',
      relationType: 'depends_on',
      type: 'depends_on',
    },
    {
      id: 'r2',
      fromEntityId: 'e-babbage',
      toEntityId: 'e-ada',
      relationType: 'mentored',
      type: 'mentored',
    },
  ],
};

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

/** Who made Ada what she is (GET /api/entities/{id}/authors): a key of Ada's, then Grace. */
const AUTHORS: EntityAuthors = {
  createdBy: { id: 'u1', name: 'Ada Lovelace' },
  createdAt: hoursAgo(72),
  updatedBy: { id: 'u2', name: 'Grace Hopper' },
  updatedAt: hoursAgo(2),
};

type Reply = { status: number; body?: unknown } | 'network-error';
const notFound: Reply = { status: 404, body: { error: 'Entity not found', code: 'NOT_FOUND' } };

function entityServer(
  overrides: { entity?: Reply; relations?: Reply; graph?: Reply; authors?: Reply } = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/entities/e-ada': () => overrides.entity ?? { status: 200, body: ADA },
    'GET /api/entities/e-engine': () => ({
      status: 200,
      body: { ...ADA, id: 'e-engine', name: 'Analytical Engine', type: 'technology' },
    }),
    'GET /api/relations': () =>
      overrides.relations ?? {
        status: 200,
        body: { relations: RELATIONS, total: 2, nextOffset: null, truncated: false },
      },
    'GET /api/relations/graph/data': () => overrides.graph ?? { status: 200, body: GRAPH },
    'GET /api/entities/e-ada/authors': () => overrides.authors ?? { status: 200, body: AUTHORS },
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
});

async function openEntity(path = '/entities/e-ada') {
  const user = userEvent.setup({ delay: null });
  const app = renderApp(path);
  return { user, ...app };
}

describe('Entity detail screen', { timeout: 20_000 }, () => {
  it('shows the header, the mini graph, relationships and observations', async () => {
    const { requests } = entityServer();
    await openEntity();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Ada Lovelace' }, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(screen.getByText('2 observations')).toBeInTheDocument();
    expect(screen.getByText('Created Jan 5, 2027')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back' })).toHaveAttribute('href', '/entities');
    const authors = await screen.findByTestId('entity-authors');
    expect(authors).toHaveTextContent('Created by Ada Lovelace · 3 days ago');
    expect(authors).toHaveTextContent('Last changed by Grace Hopper · 2 hours ago');

    const canvas = await screen.findByTestId('graph-canvas');
    expect(canvas).toHaveAttribute('data-nodes', '3');
    expect(canvas).toHaveAttribute('data-edges', '2');
    expect(canvas).toHaveAccessibleName(/Entities connected to Ada Lovelace: 3 nodes, 2 edges/);

    const rows = await screen.findAllByTestId('relationship');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Depends on');
    expect(rows[0]).toHaveTextContent('Outgoing');
    expect(rows[0]).toHaveTextContent('Analytical Engine');
    expect(rows[0]).toHaveTextContent('technology');
    expect(rows[0]).toHaveTextContent('Feb 1, 2027');
    expect(rows[1]).toHaveTextContent('Mentored');
    expect(rows[1]).toHaveTextContent('Incoming');
    expect(rows[1]).toHaveTextContent('Charles Babbage');

    const observations = screen.getByRole('list', { name: 'Observations' });
    const items = within(observations).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('Wrote the first published algorithm');
    expect(items[0]).not.toHaveTextContent('Has metadata');
    expect(items[1]).toHaveTextContent('Corresponded with Charles Babbage');
    expect(items[1]).toHaveTextContent('Has metadata');

    const paths = requests.map((request) => request.path);
    expect(paths).toContain('/api/entities/e-ada');
    expect(paths).toContain('/api/relations');
    expect(paths).toContain('/api/relations/graph/data');
    expect(paths).toContain('/api/entities/e-ada/authors');
  });

  it('says who created and last changed it only as far as history knows, and nothing when that read fails', async () => {
    entityServer({
      authors: {
        status: 200,
        // Created before the history window: only the last change is known.
        body: { ...AUTHORS, createdBy: null, createdAt: null },
      },
    });
    const first = await openEntity();
    const authors = await screen.findByTestId('entity-authors', {}, { timeout: 5000 });
    expect(authors).toHaveTextContent(/^Last changed by Grace Hopper · 2 hours ago$/);
    const time = within(authors).getByText('2 hours ago');
    expect(time.tagName).toBe('TIME');
    expect(time).toHaveAttribute('datetime', AUTHORS.updatedAt);
    first.unmount();

    entityServer({ authors: { status: 403, body: { error: 'No', code: 'FORBIDDEN' } } });
    await openEntity();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Ada Lovelace' }, { timeout: 5000 }),
    ).toBeInTheDocument();
    await screen.findByTestId('graph-canvas');
    expect(screen.queryByTestId('entity-authors')).not.toBeInTheDocument();
    expect(screen.getByText('Created Jan 5, 2027')).toBeInTheDocument();
  });

  it('asks for the relations of the entity and its depth-1, limit-50 neighbourhood', async () => {
    entityServer();
    const fetchMock = vi.mocked(fetch);
    await openEntity();
    await screen.findByTestId('graph-canvas', {}, { timeout: 5000 });
    const urls = fetchMock.mock.calls.map(([input]) => String(input));
    expect(urls).toContain('/api/relations?entityId=e-ada&limit=100');
    expect(urls).toContain('/api/relations/graph/data?rootEntityId=e-ada&depth=1&limit=50');
  });

  it('selects a relationship into the Selected Entity panel; View Entity opens it', async () => {
    entityServer();
    const { user, router } = await openEntity();
    const panel = await screen.findByRole('region', { name: 'Selected Entity' }, { timeout: 5000 });
    expect(within(panel).queryByRole('button', { name: 'View Entity' })).not.toBeInTheDocument();
    const [engineRow] = await screen.findAllByTestId('relationship');
    await user.click(within(engineRow!).getAllByRole('button')[0]!);
    expect(panel).toHaveTextContent('Analytical Engine');
    expect(panel).toHaveTextContent('technology');
    expect(panel).toHaveTextContent('Observations4');
    await user.click(within(panel).getByRole('button', { name: 'View Entity' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities/e-engine'));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Analytical Engine' }),
    ).toBeInTheDocument();
  });

  it('the navigate button and a click on another node in the graph open that entity', async () => {
    entityServer();
    const { user, router } = await openEntity();
    await user.click(
      await screen.findByRole('link', { name: 'Go to Charles Babbage' }, { timeout: 5000 }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities/e-babbage'));

    await router.navigate('/entities/e-ada');
    // Ada's own graph, drawn: the canvas of the page left behind, or one whose
    // data has not arrived, would take the keys and open nothing.
    const canvas = await screen.findByRole(
      'img',
      { name: /^Entities connected to Ada Lovelace: 3 nodes/ },
      { timeout: 5000 },
    );
    canvas.focus();
    // Node order: Ada (the entity), Analytical Engine, Charles Babbage.
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'Enter' });
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities/e-engine'));
  });

  it('says Entity not found on a 404, with Back', async () => {
    entityServer({ entity: notFound });
    await openEntity();
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent(
      'Entity not found',
    );
    expect(screen.getByRole('link', { name: 'Back' })).toHaveAttribute('href', '/entities');
  });

  it('says Failed to load entity data on any other failure', async () => {
    entityServer({ entity: { status: 400, body: { error: 'Bad', code: 'VALIDATION_FAILED' } } });
    await openEntity();
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent(
      'Failed to load entity data',
    );
    expect(screen.queryByText('Entity not found')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back' })).toBeInTheDocument();
  });

  it('shows Loading entity data... first', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL) =>
        String(input).endsWith('/auth/me')
          ? Promise.resolve(new Response(JSON.stringify(TEST_USER), { status: 200 }))
          : new Promise<Response>(() => undefined),
      ),
    );
    await openEntity();
    expect(
      await screen.findByText('Loading entity data...', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
  });

  it('draws the fallback graph of the entity and its observations when the graph call fails', async () => {
    entityServer({ graph: { status: 404, body: { error: 'Not found', code: 'NOT_FOUND' } } });
    await openEntity();
    const canvas = await screen.findByTestId('graph-canvas', {}, { timeout: 5000 });
    expect(canvas).toHaveAttribute('data-nodes', '3');
    expect(canvas).toHaveAttribute('data-edges', '2');
    expect(
      screen.getByText(
        /Connected entities could not be loaded; showing this entity’s observations/,
      ),
    ).toBeInTheDocument();
    const legend = screen.getByRole('list', { name: 'Node Types' });
    expect(legend).toHaveTextContent('observation2');
  });

  it('shows the empty states', async () => {
    entityServer({
      entity: { status: 200, body: { ...ADA, observations: [], observationsCount: 0 } },
      relations: {
        status: 200,
        body: { relations: [], total: 0, nextOffset: null, truncated: false },
      },
      graph: { status: 200, body: { entities: [GRAPH.entities[0]], relations: [] } },
    });
    await openEntity();
    expect(
      await screen.findByText('No connected entities found', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(screen.getByText('No relationships found')).toBeInTheDocument();
    expect(screen.getByText('No observations found')).toBeInTheDocument();
  });

  it('shows an empty relationships list when the relations call fails', async () => {
    entityServer({ relations: { status: 403, body: { error: 'No', code: 'FORBIDDEN' } } });
    await openEntity();
    expect(
      await screen.findByText('No relationships found', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Ada Lovelace' })).toBeInTheDocument();
  });
});
