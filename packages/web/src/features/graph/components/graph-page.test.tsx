import type { GraphData } from '@engram/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { liveQueryKeys } from '@/lib/realtime';
import { pastGraphDataKey } from '../api/get-graph-data';
import { InProcessLayoutWorker } from '@/components/graph-canvas/layout/in-process-worker';

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
  more: Record<string, (request: FakeRequest) => Reply> = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  const urls: string[] = [];
  const server = fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/relations/graph/data': (request) => reply(request),
    ...more,
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
          : String(input).includes('/graph/data')
            ? new Promise<Response>((resolve) => (answer = resolve))
            : Promise.resolve(new Response(null, { status: 404 })),
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

  describe('As of', () => {
    const PAST = '2026-11-20T10:00:00.000Z';
    const pastGraph: GraphData = { entities: GRAPH.entities.slice(0, 2), relations: [] };
    const asOfOf = (url: string) => new URL(url, 'http://localhost').searchParams.get('asOf');

    it('shows the graph as of a time from the address, with a way back to now', async () => {
      const { urls } = graphServer((request) => ({
        status: 200,
        body: request.query.get('asOf') ? pastGraph : GRAPH,
      }));
      const { user, router } = await openGraph(`/graph?asOf=${PAST}`);
      const canvas = await screen.findByTestId('graph-canvas');
      await waitFor(() => expect(canvas).toHaveAttribute('data-nodes', '2'));
      expect(urls.filter((url) => url.includes('graph/data')).map(asOfOf)).toEqual([PAST]);
      const banner = screen.getByText(/Showing the graph as of/).closest('[role="status"]')!;
      expect(banner).toHaveTextContent('live updates paused');
      await user.click(within(banner as HTMLElement).getByRole('button', { name: 'Back to now' }));
      await waitFor(() => expect(router.state.location.search).toBe(''));
      await waitFor(() =>
        expect(screen.getByTestId('graph-canvas')).toHaveAttribute('data-nodes', '4'),
      );
      expect(screen.queryByText(/Showing the graph as of/)).not.toBeInTheDocument();
      expect(urls.filter((url) => url.includes('graph/data')).map(asOfOf)).toEqual([PAST, null]);
    });

    it('moving the slider into the past loads the graph as of then', async () => {
      const { urls } = graphServer();
      const { router } = await openGraph();
      await screen.findByTestId('graph-canvas');
      const slider = screen.getByRole('slider', { name: 'As of' });
      // Now at the right; the left end is the free plan's 7 days when the plan cannot be read.
      expect(slider).toHaveValue('1000');
      expect(screen.getByTestId('as-of-control')).toHaveTextContent('7 days ago');
      fireEvent.change(slider, { target: { value: '0' } });
      fireEvent.keyUp(slider, { key: 'ArrowLeft' });
      await waitFor(() => expect(router.state.location.search).toMatch(/asOf=/));
      const asOf = new URLSearchParams(router.state.location.search).get('asOf')!;
      const hoursAgo = (Date.now() - Date.parse(asOf)) / 3_600_000;
      expect(hoursAgo).toBeGreaterThan(167.9);
      expect(hoursAgo).toBeLessThan(168.1);
      await waitFor(() =>
        expect(urls.filter((url) => url.includes('graph/data')).map(asOfOf)).toContain(asOf),
      );
      expect(await screen.findByText(/Showing the graph as of/)).toBeInTheDocument();
    });

    it('spans the plan’s history window', async () => {
      graphServer(undefined, {
        'GET /api/billing/subscription': () => ({
          status: 200,
          body: {
            plan: 'pro',
            name: 'Pro',
            status: 'active',
            cancelAtPeriodEnd: false,
            currentPeriodEnd: null,
            features: {
              maxEntities: 1,
              maxQueries: 1,
              maxApiKeys: 1,
              maxWebhooks: 1,
              features: [],
            },
            limitsPlan: { id: 'pro', name: 'Pro' },
            scheduledChange: null,
          },
        }),
      });
      await openGraph();
      await waitFor(() =>
        expect(screen.getByTestId('as-of-control')).toHaveTextContent('90 days ago'),
      );
    });

    it('shows the server’s refusal of a time by the control', async () => {
      graphServer((request) =>
        request.query.get('asOf')
          ? {
              status: 400,
              body: {
                error: 'asOf is before the history kept (7 days on your plan)',
                code: 'VALIDATION_FAILED',
              },
            }
          : { status: 200, body: GRAPH },
      );
      const { user, router } = await openGraph('/graph?asOf=2020-01-01T00:00:00.000Z');
      expect(await screen.findByTestId('as-of-error')).toHaveTextContent(
        'asOf is before the history kept (7 days on your plan)',
      );
      expect(screen.queryByText('Failed to load graph data')).not.toBeInTheDocument();
      expect(screen.queryByText(/Showing the graph as of/)).not.toBeInTheDocument();
      await user.click(
        within(screen.getByTestId('as-of-error')).getByRole('button', { name: 'Back to now' }),
      );
      await waitFor(() => expect(router.state.location.search).toBe(''));
    });

    it('keeps the past out of what live updates refresh', () => {
      expect(pastGraphDataKey('default', { limit: 250, depth: 2 }, PAST)[0]).not.toBe(
        liveQueryKeys.graph[0],
      );
    });
  });
});
