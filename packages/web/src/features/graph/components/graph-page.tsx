import { ArrowRight, Info, Network } from 'lucide-react';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CopyButton } from '@/components/copy-button';
import { RefreshButton } from '@/components/refresh-button';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Page } from '@/components/page';
import { EmptyState } from '@/components/empty-state';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import {
  DetailRow,
  GraphCanvas,
  NodeTypesLegend,
  Panel,
  toGraphView,
  typeCounts,
  type GraphNodeView,
  type GraphView,
} from '@/components/graph-canvas';
import { ApiError } from '@/lib/api-client';
import { formatCount } from '@/lib/format';
import { useGraphData } from '../api/get-graph-data';
import { useHistoryDays } from '../api/history-window';
import { asOfFromSearch } from '../as-of-model';
import {
  DEPTH_OPTIONS,
  graphParamNotices,
  graphSearch,
  LIMIT_OPTIONS,
  parseGraphParams,
  type GraphDepth,
  type GraphLimit,
  type GraphParams,
} from '../graph-params';
import { AsOfControl, PastBanner } from './as-of-control';
import { SelectField } from './select-field';

const CANVAS_HEIGHT = 600;
const EMPTY_GRAPH: GraphView = { nodes: [], edges: [] };

/** Graph (/graph; docs/product.md, The signed-in app): the whole graph, best-connected first, up to Limit entities. */
export function GraphPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const params = parseGraphParams(searchParams);
  const notices = graphParamNotices(searchParams);
  // The past (docs/history.md): `asOf` in the address, so a view of a moment can be linked and Back leaves it.
  const asOf = asOfFromSearch(searchParams);
  const graph = useGraphData(params, asOf);
  const historyDays = useHistoryDays();
  const [selectedId, setSelectedId] = useState<string | null>(null);

  const view = useMemo(() => (graph.data ? toGraphView(graph.data) : EMPTY_GRAPH), [graph.data]);
  const types = useMemo(() => typeCounts(view.nodes), [view.nodes]);
  const selected = view.nodes.find((node) => node.id === selectedId) ?? null;

  function apply(next: GraphParams) {
    // A new history entry: Back returns to the previous limit and depth.
    setSearchParams(graphSearch(next, searchParams));
  }

  function showAsOf(next: string | null) {
    const search = new URLSearchParams(searchParams);
    if (next === null) search.delete('asOf');
    else search.set('asOf', next);
    setSearchParams(search);
  }

  // A time the server will not read (before the history kept, malformed): its words, by the control.
  const asOfError =
    asOf !== null && graph.error instanceof ApiError && graph.error.status === 400
      ? graph.error.message
      : null;

  return (
    <Page
      title="Knowledge Graph Visualization"
      description="Explore your entities and the relations between them"
      actions={
        <RefreshButton
          onClick={() => void graph.refetch()}
          disabled={graph.isFetching}
          spinning={graph.isFetching}
        />
      }
    >
      {graph.isError && asOfError === null ? (
        <LoadErrorAlert onRetry={() => void graph.refetch()}>
          Failed to load graph data
        </LoadErrorAlert>
      ) : null}

      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]">
        <Card className="min-w-0 overflow-hidden">
          <GraphControls
            // Re-mounted when the address changes (Back, Forward), so the selectors show it.
            key={`${params.limit}-${params.depth}`}
            params={params}
            notices={notices}
            onApply={apply}
          />
          <AsOfControl
            key={`${asOf ?? 'now'}-${historyDays}`}
            asOf={asOf}
            days={historyDays}
            error={asOfError}
            onChange={showAsOf}
          />
          {/* Refused (the error says why, by the control): no past is shown to be in. */}
          {asOf !== null && asOfError === null ? (
            <PastBanner asOf={asOf} onBackToNow={() => showAsOf(null)} />
          ) : null}
          <div className="relative border-t border-border">
            {graph.data ? (
              view.nodes.length === 0 ? (
                <EmptyGraph past={asOf !== null} />
              ) : (
                <GraphCanvas
                  graph={view}
                  height={CANVAS_HEIGHT}
                  label="Knowledge graph"
                  selectedId={selected?.id ?? null}
                  onNodeActivate={(node) => setSelectedId(node.id)}
                  onBackgroundClick={() => setSelectedId(null)}
                />
              )
            ) : graph.isError ? (
              <div
                className="flex items-center justify-center p-6 text-sm text-muted-foreground"
                style={{ height: CANVAS_HEIGHT }}
              >
                {asOfError !== null
                  ? 'Choose a moment within the history kept, or go back to now.'
                  : 'Nothing to show until the graph loads.'}
              </div>
            ) : (
              <div
                role="status"
                className="flex items-center justify-center gap-2 text-sm text-muted-foreground"
                style={{ height: CANVAS_HEIGHT }}
              >
                <Spinner />
                Loading graph data...
              </div>
            )}
            {graph.data && graph.isPlaceholderData ? (
              <div
                role="status"
                className="absolute top-2 left-2 flex items-center gap-1.5 rounded-md border border-border bg-card/90 px-2 py-1 text-xs text-muted-foreground shadow-xs"
              >
                <Spinner className="size-3" />
                Loading graph data...
              </div>
            ) : null}
          </div>
        </Card>

        <div className="grid min-w-0 gap-6">
          <SelectedNodePanel node={selected} />
          <GraphStatistics view={view} typeCount={types.length} limit={params.limit} />
          <NodeTypesLegend types={types} />
        </div>
      </div>
    </Page>
  );
}

function GraphControls({
  params,
  notices,
  onApply,
}: {
  params: GraphParams;
  /** Address values the selectors do not offer, and what is used instead. */
  notices: string[];
  onApply: (params: GraphParams) => void;
}) {
  const [limit, setLimit] = useState<GraphLimit>(params.limit);
  const [depth, setDepth] = useState<GraphDepth>(params.depth);

  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ limit, depth });
  }

  return (
    <form
      onSubmit={submit}
      className="flex flex-wrap items-end gap-3 p-4"
      aria-label="Graph options"
    >
      <SelectField
        label="Limit"
        className="w-28"
        value={String(limit)}
        onChange={(event) => setLimit(Number(event.target.value) as GraphLimit)}
        options={LIMIT_OPTIONS.map((value) => ({ value: String(value), label: String(value) }))}
      />
      <SelectField
        label="Depth"
        className="w-24"
        value={String(depth)}
        onChange={(event) => setDepth(Number(event.target.value) as GraphDepth)}
        options={DEPTH_OPTIONS.map((value) => ({ value: String(value), label: String(value) }))}
      />
      <Button type="submit">Apply</Button>
      <p className="flex basis-full items-center gap-1.5 text-xs text-muted-foreground sm:ml-auto sm:basis-auto">
        <Info className="size-3.5 shrink-0" aria-hidden />
        <span className="pointer-coarse:hidden">Scroll to zoom, drag to pan or move a node</span>
        <span className="hidden pointer-coarse:inline">
          Pinch to zoom, drag to pan or move a node
        </span>
      </p>
      {notices.length > 0 ? (
        <p data-testid="graph-param-notice" className="basis-full text-xs text-muted-foreground">
          {notices.join(' ')}
        </p>
      ) : null}
    </form>
  );
}

function EmptyGraph({ past }: { past: boolean }) {
  return (
    <EmptyState
      frame="none"
      className="justify-center py-0"
      style={{ height: CANVAS_HEIGHT }}
      icon={Network}
      {...(past
        ? {
            title: 'The graph was empty then',
            description:
              'No entities existed at this moment. Move the slider later, or go back to now.',
          }
        : {
            title: 'No graph data to display',
            description:
              'Entities and the relations between them appear here as soon as you or your agents create them.',
            actions: (
              <Button asChild variant="outline">
                <Link to="/entities">
                  Go to Entities
                  <ArrowRight aria-hidden />
                </Link>
              </Button>
            ),
          })}
    />
  );
}

function SelectedNodePanel({ node }: { node: GraphNodeView | null }) {
  return (
    <Panel title="Selected Node">
      {node ? (
        <dl className="grid gap-3">
          <DetailRow label="Name">
            <Link
              to={`/entities/${encodeURIComponent(node.id)}`}
              className="font-medium wrap-anywhere text-primary underline-offset-4 hover:underline"
            >
              {node.name}
            </Link>
          </DetailRow>
          <DetailRow label="Type">
            <EntityTypeBadge type={node.type} />
          </DetailRow>
          <DetailRow label="Observations">
            <span className="tabular-nums">{formatCount(node.observationsCount)}</span>
          </DetailRow>
          <DetailRow label="ID">
            {/* One line, never broken mid-id: cut with an ellipsis (whole on hover), and copyable. */}
            <span className="flex min-w-0 items-center gap-1">
              <code
                className="min-w-0 truncate font-mono text-xs text-muted-foreground"
                title={node.id}
              >
                {node.id}
              </code>
              <CopyButton
                value={node.id}
                label="Copy ID"
                variant="ghost"
                size="icon"
                className="size-7 shrink-0"
              />
            </span>
          </DetailRow>
        </dl>
      ) : (
        <p className="text-sm text-muted-foreground">Click a node to see its details.</p>
      )}
    </Panel>
  );
}

function GraphStatistics({
  view,
  typeCount,
  limit,
}: {
  view: GraphView;
  typeCount: number;
  limit: number;
}) {
  const stats = [
    { label: 'Nodes', value: view.nodes.length, testId: 'graph-stat-nodes' },
    { label: 'Edges', value: view.edges.length, testId: 'graph-stat-edges' },
    { label: 'Node Types', value: typeCount, testId: 'graph-stat-types' },
  ];
  return (
    <Panel title="Graph Statistics">
      <dl className="grid grid-cols-3 gap-2">
        {stats.map((stat) => (
          <div key={stat.label} className="rounded-md bg-muted px-2.5 py-2">
            <dt className="text-xs text-muted-foreground">{stat.label}</dt>
            <dd className="mt-0.5 text-lg font-semibold tabular-nums" data-testid={stat.testId}>
              {formatCount(stat.value)}
            </dd>
          </div>
        ))}
      </dl>
      {view.nodes.length >= limit ? (
        <p className="mt-3 text-xs text-muted-foreground">
          Limit reached: showing {formatCount(limit)} entities, best-connected first.
        </p>
      ) : null}
    </Panel>
  );
}
