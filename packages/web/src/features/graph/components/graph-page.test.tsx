import type { GraphData } from '@engram/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { InProcessLayoutWorker } from '../layout/in-process-worker';

const GRAPH: GraphData = {
  entities: [
    { id: 'e-ada', name: 'Ada Lovelace', type: 'person', observationsCount: 3 },
    { id: 'e-engine', name: 'Analytical Engine', type: 'technology', observationsCount: 1 },
    { id: 'e-babbage', name: 'Charles Babbage', type: 'person', observationsCount: 0 },
    {
      id: 'e-notes',
      name: 'Notes on the Analytical Engine',
      type: 'concept',
      observationsCount: 2,
    },
  ],
  relations: [
    { id: 'r1', fromEntityId: 'e-ada', toEntityId: 'e-engine', relationType: 'uses', type: 'uses' },
    {
      id: 'r2',
      fromEntityId: 'e-babbage',
      toEntityId: 'e-engine',
      relationType: 'implements',
      type: 'implements',
    },
    {
      id: 'r3',
      fromEntityId: 'e-ada',
      toEntityId: 'e-notes',
      relationType: 'based_on',
      type: 'based_on',
    },
  ],
};

type Reply = { status: number; body?: unknown } | 'network-error';

function graphServer(
  reply: (request: FakeRequest) => Reply = () => ({ status: 200, body: GRAPH }),
) {
  localStorage.setItem('auth_token', 'valid-token');
  const urls: string[] = [];
  const server = fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/relations/graph/data': (request) => reply(request),
  });
  // The fake server matches paths; keep the full address to check the query.
  const inner = server.fetchMock.getMockImplementation()!;
  server.fetchMock.mockImplementation(async (input, init) => {
    urls.push(String(input));
    return inner(input, init);
  });
  return { ...server, urls };
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
  // jsdom draws nothing; the scene skips drawing without a 2D context.
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

async function openGraph(path = '/graph') {
  const user = userEvent.setup({ delay: null });
  const app = renderApp(path);
  expect(
    await screen.findByRole(
      'heading',
      { level: 1, name: 'Knowledge Graph Visualization' },
      { timeout: 5000 },
    ),
  ).toBeInTheDocument();
  return { user, ...app };
}

const stat = (id: string) => screen.getByTestId(`graph-stat-${id}`);

describe('Graph screen', { timeout: 20_000 }, () => {
  it('loads limit 250 and depth 2 by default and shows the statistics and legend', async () => {
    const { urls } = graphServer();
    await openGraph();
    const canvas = await screen.findByTestId('graph-canvas');
    expect(canvas).toHaveAttribute('data-nodes', '4');
    expect(canvas).toHaveAttribute('data-edges', '3');
    expect(canvas).toHaveAccessibleName(/Knowledge graph: 4 nodes, 3 edges/);
    expect(stat('nodes')).toHaveTextContent('4');
    expect(stat('edges')).toHaveTextContent('3');
    expect(stat('types')).toHaveTextContent('3');
    expect(urls.some((url) => url.endsWith('/api/relations/graph/data?limit=250&depth=2'))).toBe(
      true,
    );
    const legend = screen.getByRole('region', { name: 'Node Types' });
    expect(
      within(legend)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['person2', 'concept1', 'technology1']);
    expect(screen.getByLabelText('Limit')).toHaveValue('250');
    expect(screen.getByLabelText('Depth')).toHaveValue('2');
    expect(screen.getByRole('button', { name: 'Reset zoom' })).toBeInTheDocument();
    // The layout runs (in the stand-in worker here) until it settles.
    await waitFor(() => expect(canvas).toHaveAttribute('data-layout', 'settled'), {
      timeout: 10_000,
    });
  });

  it('shows the loading text until the data arrives', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    let answer: (response: Response) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL) =>
        String(input).endsWith('/auth/me')
          ? Promise.resolve(new Response(JSON.stringify(TEST_USER), { status: 200 }))
          : new Promise<Response>((resolve) => (answer = resolve)),
      ),
    );
    await openGraph();
    expect(await screen.findByText('Loading graph data...')).toBeInTheDocument();
    answer(new Response(JSON.stringify({ entities: [], relations: [] }), { status: 200 }));
    expect(await screen.findByText('No graph data to display')).toBeInTheDocument();
    expect(screen.queryByText('Loading graph data...')).not.toBeInTheDocument();
    expect(stat('nodes')).toHaveTextContent('0');
  });

  it('reads limit and depth from the address, bad values falling back to the defaults', async () => {
    const { urls } = graphServer();
    await openGraph('/graph?limit=500&depth=9');
    await screen.findByTestId('graph-canvas');
    expect(screen.getByLabelText('Limit')).toHaveValue('500');
    expect(screen.getByLabelText('Depth')).toHaveValue('2');
    expect(urls.some((url) => url.endsWith('graph/data?limit=500&depth=2'))).toBe(true);
  });

  it('Apply writes the selectors into the address and loads that graph', async () => {
    const { urls } = graphServer();
    const { user, router } = await openGraph();
    await screen.findByTestId('graph-canvas');
    await user.selectOptions(screen.getByLabelText('Limit'), '100');
    await user.selectOptions(screen.getByLabelText('Depth'), '4');
    // Nothing is loaded before Apply.
    expect(urls.some((url) => url.includes('limit=100'))).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(router.state.location.search).toBe('?limit=100&depth=4'));
    await waitFor(() =>
      expect(urls.some((url) => url.endsWith('graph/data?limit=100&depth=4'))).toBe(true),
    );
    // Back returns to the previous view and its selectors.
    await router.navigate(-1);
    await waitFor(() => expect(screen.getByLabelText('Limit')).toHaveValue('250'));
    expect(screen.getByLabelText('Depth')).toHaveValue('2');
  });

  it('shows Failed to load graph data in a red alert', async () => {
    graphServer(() => ({ status: 400, body: { error: 'Bad', code: 'VALIDATION_FAILED' } }));
    await openGraph();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load graph data');
    expect(screen.queryByTestId('graph-canvas')).not.toBeInTheDocument();
  });

  it('fills the Selected Node panel from the keyboard and links to the entity', async () => {
    graphServer();
    const { user, router } = await openGraph();
    const canvas = await screen.findByTestId('graph-canvas');
    const panel = screen.getByRole('region', { name: 'Selected Node' });
    expect(panel).toHaveTextContent('Click a node to see its details.');
    canvas.focus();
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'Enter' });
    const link = await within(panel).findByRole('link', { name: 'Analytical Engine' });
    expect(link).toHaveAttribute('href', '/entities/e-engine');
    expect(panel).toHaveTextContent('technology');
    expect(panel).toHaveTextContent('Observations1');
    expect(panel).toHaveTextContent('IDe-engine');
    await user.click(link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities/e-engine'));
  });

  it('Refresh loads the graph again', async () => {
    const { urls } = graphServer();
    const { user } = await openGraph();
    await screen.findByTestId('graph-canvas');
    const before = urls.filter((url) => url.includes('graph/data')).length;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() =>
      expect(urls.filter((url) => url.includes('graph/data')).length).toBe(before + 1),
    );
  });
});
