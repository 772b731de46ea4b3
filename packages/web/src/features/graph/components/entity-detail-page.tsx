import { typeLabel, type Entity, type Relation } from '@engram/shared';
import {
  ArrowDownLeft,
  ArrowLeft,
  ArrowRight,
  ArrowUpRight,
  Calendar,
  Eye,
  FileText,
} from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type KeyboardEvent } from 'react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { RefreshButton } from '@/components/refresh-button';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useEntitySubscription } from '@/lib/realtime';
import { cn } from '@/lib/cn';
import { useEntity } from '@/lib/api/entities';
import { useSpaceSlug } from '@/lib/space';
import { entityAuthorsKey } from '../api/entity-authors';
import { entityHistoryKey } from '../api/entity-history';
import { useEntityGraph } from '../api/get-entity-graph';
import { useEntityRelations } from '../api/list-entity-relations';
import { formatCount, formatDate, plural } from '../format';
import {
  fallbackGraph,
  OBSERVATION_TYPE,
  toGraphView,
  typeCounts,
  type GraphNodeView,
} from '../graph-model';
import { validityLabel, type Validity } from '../history-model';
import { EntityAuthorsNote } from './entity-authors';
import { EntityHistory } from './entity-history';
import { GraphCanvas } from './graph-canvas';
import { DetailRow, NodeTypesLegend, Panel } from './graph-panels';

const GRAPH_HEIGHT = 400;

const entityPath = (id: string) => `/entities/${encodeURIComponent(id)}`;

/** Entity detail (/entities/{id}; docs/product.md, The signed-in app): one entity, its neighbourhood, relations and observations. */
export function EntityDetailPage() {
  const { entityId } = useParams();
  if (!entityId) return <Navigate to="/entities" replace />;
  // A fresh screen per entity: selection and layout never carry over to the next one.
  return <EntityDetail key={entityId} entityId={entityId} />;
}

interface SelectedEntity {
  id: string;
  name: string;
  type: string;
}

function EntityDetail({ entityId }: { entityId: string }) {
  useEntitySubscription(entityId);
  const entity = useEntity(entityId);
  const relations = useEntityRelations(entityId);
  const graph = useEntityGraph(entityId);
  const queryClient = useQueryClient();
  const space = useSpaceSlug();

  function refresh() {
    void entity.refetch();
    void relations.refetch();
    void graph.refetch();
    void queryClient.invalidateQueries({ queryKey: entityHistoryKey(space, entityId) });
    void queryClient.invalidateQueries({ queryKey: entityAuthorsKey(space, entityId) });
  }

  if (entity.isPending || entity.isError) {
    const notFound = entity.error instanceof ApiError && entity.error.status === 404;
    return (
      <div className="grid gap-6">
        <title>Entity Details · Engram</title>
        <BackLink />
        <h1 className="text-2xl font-semibold tracking-tight">Entity Details</h1>
        {entity.isPending ? (
          <Card
            role="status"
            className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
          >
            <Spinner />
            Loading entity data...
          </Card>
        ) : (
          <Alert variant="error">
            {notFound ? 'Entity not found' : 'Failed to load entity data'}
          </Alert>
        )}
      </div>
    );
  }

  return (
    <LoadedEntity
      entity={entity.data}
      relations={relations.isError ? [] : relations.data}
      graph={graph}
      refreshing={entity.isFetching || relations.isFetching || graph.isFetching}
      onRefresh={refresh}
    />
  );
}

function BackLink() {
  return (
    <div>
      <Button asChild variant="ghost" size="sm" className="-ml-3">
        <Link to="/entities">
          <ArrowLeft aria-hidden />
          Back
        </Link>
      </Button>
    </div>
  );
}

function LoadedEntity({
  entity,
  relations,
  graph,
  refreshing,
  onRefresh,
}: {
  entity: Entity;
  /** Undefined while loading; empty when the call failed (docs/product.md, States). */
  relations: Relation[] | undefined;
  graph: ReturnType<typeof useEntityGraph>;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const navigate = useNavigate();
  const [selected, setSelected] = useState<SelectedEntity | null>(null);
  // The tab is in the address (?tab=history), so a reload or a shared link opens it.
  const [searchParams, setSearchParams] = useSearchParams();
  const tab: EntityTab = searchParams.get('tab') === 'history' ? 'history' : 'overview';

  function showTab(next: EntityTab) {
    const search = new URLSearchParams(searchParams);
    if (next === 'overview') search.delete('tab');
    else search.set('tab', next);
    setSearchParams(search, { replace: true });
  }

  // The neighbourhood, or the fallback graph when the graph call fails (docs/product.md, States).
  const usingFallback = graph.isError && !graph.data;
  // Kept apart so a refetched entity (new object, same graph) does not hand the canvas a new graph.
  const neighbourhood = useMemo(() => (graph.data ? toGraphView(graph.data) : null), [graph.data]);
  const fallback = useMemo(
    () => (usingFallback ? fallbackGraph(entity) : null),
    [usingFallback, entity],
  );
  const view = neighbourhood ?? fallback;
  const types = useMemo(() => (view ? typeCounts(view.nodes) : []), [view]);

  function activate(node: GraphNodeView) {
    if (node.id === entity.id) {
      setSelected({ id: entity.id, name: entity.name, type: entity.type });
    } else if (node.type !== OBSERVATION_TYPE || !usingFallback) {
      void navigate(entityPath(node.id));
    }
  }

  const selectedCount =
    selected === null
      ? undefined
      : selected.id === entity.id
        ? entity.observationsCount
        : view?.nodes.find((node) => node.id === selected.id)?.observationsCount;

  return (
    <div className="grid gap-6">
      <title>{`${entity.name} · Engram`}</title>
      <BackLink />
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight wrap-anywhere">{entity.name}</h1>
          <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-2 text-sm text-muted-foreground">
            <EntityTypeBadge type={entity.type} />
            <span className="flex items-center gap-1.5">
              <FileText className="size-4" aria-hidden />
              {plural(entity.observationsCount, 'observation')}
            </span>
            <span className="flex items-center gap-1.5">
              <Calendar className="size-4" aria-hidden />
              Created {formatDate(entity.createdAt)}
            </span>
          </div>
          <EntityAuthorsNote entityId={entity.id} />
        </div>
        <RefreshButton
          onClick={onRefresh}
          disabled={refreshing}
          spinning={refreshing}
          className="self-start"
        />
      </div>

      <EntityTabs tab={tab} onChange={showTab} />

      {tab === 'history' ? (
        <div role="tabpanel" id="entity-tab-history" aria-labelledby="entity-tab-history-tab">
          <EntityHistory entityId={entity.id} />
        </div>
      ) : (
        /* On phones the Selected Entity panel follows the graph; on wide screens it is the side column. */
        <div
          role="tabpanel"
          id="entity-tab-overview"
          aria-labelledby="entity-tab-overview-tab"
          className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]"
        >
          <Card
            className="min-w-0 overflow-hidden lg:col-start-1"
            role="region"
            aria-labelledby="connected-heading"
          >
            <div className="flex flex-wrap items-center justify-between gap-2 px-4 pt-4 pb-3">
              <h2 id="connected-heading" className="text-base font-semibold">
                Connected Entities
              </h2>
              {view && view.nodes.length > 1 ? (
                <NodeTypesLegend types={types} bare className="text-xs" />
              ) : null}
            </div>
            {usingFallback && view && view.nodes.length > 1 ? (
              <p className="border-t border-border bg-muted/50 px-4 py-2 text-xs text-muted-foreground">
                Connected entities could not be loaded; showing this entity’s observations instead.
              </p>
            ) : null}
            <div className="border-t border-border">
              {view === null ? (
                <div
                  role="status"
                  className="flex items-center justify-center gap-2 text-sm text-muted-foreground"
                  style={{ height: GRAPH_HEIGHT }}
                >
                  <Spinner />
                  <span className="sr-only">Loading entity data...</span>
                </div>
              ) : view.nodes.length <= 1 ? (
                <div
                  className="flex items-center justify-center px-6 text-sm text-muted-foreground"
                  style={{ height: GRAPH_HEIGHT }}
                >
                  No connected entities found
                </div>
              ) : (
                <GraphCanvas
                  graph={view}
                  height={GRAPH_HEIGHT}
                  label={`Entities connected to ${entity.name}`}
                  pinnedId={entity.id}
                  selectedId={selected?.id ?? entity.id}
                  onNodeActivate={activate}
                />
              )}
            </div>
          </Card>

          <SelectedEntityPanel
            className="lg:col-start-2 lg:row-span-3 lg:row-start-1"
            selected={selected}
            observationsCount={selectedCount}
            onView={(id) => void navigate(entityPath(id))}
          />

          <div className="min-w-0 lg:col-start-1">
            <RelationshipsCard
              entityId={entity.id}
              relations={relations}
              selectedId={selected?.id ?? null}
              onSelect={setSelected}
            />
          </div>
          <div className="min-w-0 lg:col-start-1">
            <ObservationsCard entity={entity} />
          </div>
        </div>
      )}
    </div>
  );
}

type EntityTab = 'overview' | 'history';

const ENTITY_TABS: { value: EntityTab; label: string }[] = [
  { value: 'overview', label: 'Overview' },
  { value: 'history', label: 'History' },
];

/** Overview (the graph, relations, observations) and History (docs/history.md), as a tab bar under the title. */
function EntityTabs({ tab, onChange }: { tab: EntityTab; onChange: (tab: EntityTab) => void }) {
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    event.preventDefault();
    const index = ENTITY_TABS.findIndex((item) => item.value === tab);
    const step = event.key === 'ArrowRight' ? 1 : -1;
    const next = ENTITY_TABS[(index + step + ENTITY_TABS.length) % ENTITY_TABS.length]!;
    onChange(next.value);
    document.getElementById(`entity-tab-${next.value}-tab`)?.focus();
  }
  return (
    <div
      role="tablist"
      aria-label="Entity sections"
      className="-mb-2 flex gap-1 overflow-x-auto border-b border-border"
      onKeyDown={onKeyDown}
    >
      {ENTITY_TABS.map(({ value, label }) => {
        const active = value === tab;
        return (
          <button
            key={value}
            type="button"
            role="tab"
            id={`entity-tab-${value}-tab`}
            aria-selected={active}
            aria-controls={`entity-tab-${value}`}
            tabIndex={active ? 0 : -1}
            onClick={() => onChange(value)}
            className={cn(
              '-mb-px inline-flex h-9 cursor-pointer items-center border-b-2 px-3 text-sm font-medium whitespace-nowrap outline-none focus-visible:ring-2 focus-visible:ring-ring',
              active
                ? 'border-primary text-foreground'
                : 'border-transparent text-muted-foreground hover:text-foreground',
            )}
          >
            {label}
          </button>
        );
      })}
    </div>
  );
}

function RelationshipsCard({
  entityId,
  relations,
  selectedId,
  onSelect,
}: {
  entityId: string;
  relations: Relation[] | undefined;
  selectedId: string | null;
  onSelect: (entity: SelectedEntity) => void;
}) {
  return (
    <Card className="min-w-0" role="region" aria-labelledby="relationships-heading">
      <div className="flex items-center justify-between gap-2 px-4 pt-4 pb-3">
        <h2 id="relationships-heading" className="text-base font-semibold">
          Relationships
        </h2>
        {relations ? (
          <span className="text-xs text-muted-foreground tabular-nums">
            {formatCount(relations.length)}
          </span>
        ) : null}
      </div>
      <div className="border-t border-border">
        {relations === undefined ? (
          <div role="status" className="flex items-center justify-center p-6">
            <Spinner />
            <span className="sr-only">Loading entity data...</span>
          </div>
        ) : relations.length === 0 ? (
          <p className="p-6 text-center text-sm text-muted-foreground">No relationships found</p>
        ) : (
          <ul className="divide-y divide-border" aria-label="Relationships">
            {relations.map((relation) => {
              const outgoing = relation.fromEntityId === entityId;
              const other = outgoing ? relation.toEntity : relation.fromEntity;
              return (
                <RelationshipRow
                  key={relation.id}
                  relation={relation}
                  outgoing={outgoing}
                  other={other}
                  selected={selectedId === other.id}
                  onSelect={() => onSelect(other)}
                />
              );
            })}
          </ul>
        )}
      </div>
    </Card>
  );
}

function RelationshipRow({
  relation,
  outgoing,
  other,
  selected,
  onSelect,
}: {
  relation: Relation;
  outgoing: boolean;
  other: SelectedEntity;
  selected: boolean;
  onSelect: () => void;
}) {
  const name = other.name || 'Unknown';
  const DirectionIcon = outgoing ? ArrowUpRight : ArrowDownLeft;
  return (
    <li
      className={cn(
        'flex items-center gap-2 pr-2 transition-colors',
        selected ? 'bg-primary-soft/60' : 'hover:bg-muted/60',
      )}
      data-testid="relationship"
    >
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        className="flex min-w-0 flex-1 cursor-pointer flex-col gap-1.5 px-4 py-3 text-left outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset sm:flex-row sm:items-center sm:gap-3"
      >
        <span className="flex shrink-0 items-center gap-2">
          <DirectionIcon className="size-4 text-muted-foreground" aria-hidden />
          <span className="text-sm font-medium">{typeLabel(relation.type)}</span>
          <Badge variant={outgoing ? 'accent' : 'neutral'}>
            {outgoing ? 'Outgoing' : 'Incoming'}
          </Badge>
        </span>
        <span className="flex min-w-0 flex-1 items-center gap-2">
          <span className="min-w-0 truncate text-sm">{name}</span>
          <EntityTypeBadge type={other.type || 'unknown'} />
        </span>
        <span className="flex shrink-0 flex-col text-xs text-muted-foreground sm:items-end">
          <span>{formatDate(relation.createdAt)}</span>
          <ValidityNote of={relation} />
        </span>
      </button>
      <Button asChild variant="ghost" size="icon" className="size-8 shrink-0">
        <Link to={entityPath(other.id)} aria-label={`Go to ${name}`} title={`Go to ${name}`}>
          <ArrowRight aria-hidden />
        </Link>
      </Button>
    </li>
  );
}

function ObservationsCard({ entity }: { entity: Entity }) {
  const { observations } = entity;
  return (
    <Card className="min-w-0" role="region" aria-labelledby="observations-heading">
      <div className="flex items-center justify-between gap-2 px-4 pt-4 pb-3">
        <h2 id="observations-heading" className="text-base font-semibold">
          Observations
        </h2>
        <span className="text-xs text-muted-foreground tabular-nums">
          {formatCount(entity.observationsCount)}
        </span>
      </div>
      <div className="border-t border-border">
        {observations.length === 0 ? (
          <p className="p-6 text-center text-sm text-muted-foreground">No observations found</p>
        ) : (
          <ul className="divide-y divide-border" aria-label="Observations">
            {observations.map((observation) => (
              <li key={observation.id} className="grid gap-1.5 px-4 py-3">
                <p className="text-sm wrap-anywhere whitespace-pre-wrap">{observation.content}</p>
                <div className="flex flex-wrap items-center gap-2 text-xs text-muted-foreground">
                  <span>{formatDate(observation.createdAt)}</span>
                  <ValidityNote of={observation} />
                  {observation.metadata && Object.keys(observation.metadata).length > 0 ? (
                    <Badge variant="outline">Has metadata</Badge>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
        {entity.observationsTruncated ? (
          <p className="border-t border-border px-4 py-2 text-xs text-muted-foreground">
            Showing the first {formatCount(observations.length)} of{' '}
            {formatCount(entity.observationsCount)} observations.
          </p>
        ) : null}
      </div>
    </Card>
  );
}

function SelectedEntityPanel({
  selected,
  observationsCount,
  onView,
  className,
}: {
  className?: string;
  selected: SelectedEntity | null;
  observationsCount: number | undefined;
  onView: (id: string) => void;
}) {
  return (
    <Panel title="Selected Entity" className={className}>
      {selected ? (
        <div className="grid gap-4">
          <dl className="grid gap-3">
            <DetailRow label="Name">
              <span className="font-medium wrap-anywhere">{selected.name}</span>
            </DetailRow>
            <DetailRow label="Type">
              <EntityTypeBadge type={selected.type} />
            </DetailRow>
            {observationsCount !== undefined ? (
              <DetailRow label="Observations">
                <span className="tabular-nums">{formatCount(observationsCount)}</span>
              </DetailRow>
            ) : null}
            <DetailRow label="ID">
              <code className="font-mono text-xs break-all text-muted-foreground">
                {selected.id}
              </code>
            </DetailRow>
          </dl>
          <Button variant="outline" onClick={() => onView(selected.id)}>
            <Eye aria-hidden />
            View Entity
          </Button>
        </div>
      ) : (
        <p className="text-sm text-muted-foreground">
          Select a relationship, or this entity in the graph, to see it here.
        </p>
      )}
    </Panel>
  );
}

/**
 * When the fact held in the world (validFrom/validTo, when the writer said;
 * docs/history.md), muted beside the date it was recorded.
 */
function ValidityNote({ of }: { of: Validity }) {
  const label = validityLabel(of);
  return label ? <span data-testid="validity">{label}</span> : null;
}
