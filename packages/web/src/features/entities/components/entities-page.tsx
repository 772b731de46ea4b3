import { typeLabel, type Entity, type TypeSummary } from '@engram/shared';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Plus, Search, Shapes } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { RefreshButton } from '@/components/refresh-button';
import { PageHeader } from '@/components/page-header';
import { TypePicker } from '@/components/type-picker';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { useEntityPages, type EntityFilter } from '../api/list-entities';
import { entityTypePages, entityTypesKey } from '../api/list-entity-types';
import { entityCountLabel, formatCount } from '../display';
import { DeleteEntityDialog } from './delete-entity-dialog';
import { EntityCard } from './entity-card';
import { EntityFormDialog, type EntityFormDialogState } from './entity-form-dialog';
import { EntityGrid } from './entity-grid';
import { ViewEntityDialog } from './view-entity-dialog';

const ALL_TYPES = 'all';
const ALL_TYPES_OPTIONS = [{ value: ALL_TYPES, label: 'All Types' }];
const typeChoice = (type: string) => `type:${type}`;
/** 'Person (1,666)': each type with its count (spec §2). */
const typeFilterLabel = (summary: TypeSummary) =>
  `${summary.label} (${formatCount(summary.count)})`;
const typeFilterOptions = (types: TypeSummary[]) =>
  types.map((summary) => ({ value: typeChoice(summary.type), label: typeFilterLabel(summary) }));

/**
 * Entity Management (/entities, spec §2): search and filter, a grid of
 * entity cards read from the server 100 at a time (only the rows on screen
 * are in the page), and the create, view, edit and delete dialogs. The search and type live in the address, so Back
 * from an entity's page returns to the same results.
 *
 * Arriving with ?create=1 opens Create Entity (the dashboard's quick action),
 * with ?focus=search focuses the search box; either is then dropped from the
 * address so a reload does not repeat it.
 */
export function EntitiesPage() {
  const [params, setParams] = useSearchParams();
  const filter: EntityFilter = useMemo(
    () => ({ query: params.get('q') ?? '', type: params.get('type') || null }),
    [params],
  );
  const [draft, setDraft] = useState(filter.query);
  const searchRef = useRef<HTMLInputElement>(null);

  const pages = useEntityPages(filter);
  // The type filter's first page (shared with the picker): the chosen type's count, when on it.
  const firstTypes = useInfiniteQuery(entityTypePages(''));
  const queryClient = useQueryClient();

  // Arriving with ?create=1 (the dashboard's Create Entity) opens the form at once.
  const [formDialog, setFormDialog] = useState<EntityFormDialogState>(() =>
    params.get('create') === '1' ? { mode: 'create' } : null,
  );
  const [viewing, setViewing] = useState<Entity | null>(null);
  const [deleting, setDeleting] = useState<Entity | null>(null);

  // Arrival parameters act once: the search is focused or the dialog opened,
  // and both leave the address so a reload does not repeat them.
  const arrival = params.has('create') || params.has('focus');
  const focusSearch = params.get('focus') === 'search';
  useEffect(() => {
    if (!arrival) return;
    if (focusSearch) searchRef.current?.focus();
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('create');
        next.delete('focus');
        return next;
      },
      { replace: true },
    );
  }, [arrival, focusSearch, setParams]);

  const loadFailed = pages.isError && !pages.isFetchNextPageError;
  useEffect(() => {
    if (pages.isError) toast.error('Failed to load entities');
  }, [pages.isError, pages.errorUpdatedAt]);

  function applyFilter(next: Partial<EntityFilter>) {
    setParams(
      (current) => {
        const merged = { ...filter, ...next };
        const out = new URLSearchParams(current);
        if (merged.query.trim()) out.set('q', merged.query.trim());
        else out.delete('q');
        if (merged.type) out.set('type', merged.type);
        else out.delete('type');
        return out;
      },
      { replace: true },
    );
  }

  function search(event: FormEvent) {
    event.preventDefault();
    applyFilter({ query: draft });
  }

  const chosen = firstTypes.data?.pages
    .flatMap((page) => page.types)
    .find((summary) => summary.type === filter.type);
  const chosenTypeLabel = chosen
    ? typeFilterLabel(chosen)
    : filter.type
      ? typeLabel(filter.type)
      : null;
  const entities = pages.data?.pages.flatMap((page) => page.entities) ?? [];
  const total = pages.data?.pages[0]?.total ?? 0;
  const filtered = filter.query !== '' || filter.type !== null;

  return (
    <div className="grid gap-6">
      <title>Entities · Engram</title>
      <PageHeader
        title="Entity Management"
        description="Create, browse and edit the entities in your knowledge graph"
        actions={
          <>
            <RefreshButton
              disabled={pages.isFetching && !pages.isFetchingNextPage}
              spinning={pages.isRefetching && !pages.isFetchingNextPage}
              onClick={() => {
                void pages.refetch();
                void queryClient.invalidateQueries({ queryKey: entityTypesKey });
              }}
            />
            <Button onClick={() => setFormDialog({ mode: 'create' })}>
              <Plus aria-hidden />
              Create Entity
            </Button>
          </>
        }
      />

      <Card className="p-4">
        <form
          role="search"
          aria-label="Filter entities"
          onSubmit={search}
          className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_14rem_auto]"
        >
          <div className="relative">
            <Search
              className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
              aria-hidden
            />
            <Input
              ref={searchRef}
              type="search"
              aria-label="Search entities"
              placeholder="Search by name, type or observation..."
              className="pl-9"
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
            />
          </div>
          <TypePicker
            label="Entity type"
            value={filter.type ? typeChoice(filter.type) : ALL_TYPES}
            display={filter.type ? chosenTypeLabel : 'All Types'}
            placeholder="All Types"
            searchLabel="Search entity types"
            pages={entityTypePages}
            leading={ALL_TYPES_OPTIONS}
            optionsFor={typeFilterOptions}
            onChange={(choice) =>
              applyFilter({
                query: draft,
                type: choice === ALL_TYPES ? null : choice.slice('type:'.length),
              })
            }
          />
          <Button type="submit" variant="secondary">
            <Search aria-hidden />
            Search
          </Button>
        </form>
      </Card>

      {pages.isPending ? (
        <Card
          role="status"
          className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
        >
          <Spinner />
          Loading entities...
        </Card>
      ) : null}

      {loadFailed && !pages.data ? (
        <Alert variant="error">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
            <span>Failed to load entities</span>
            <button
              type="button"
              className="cursor-pointer font-medium underline underline-offset-4"
              onClick={() => void pages.refetch()}
            >
              Try again
            </button>
          </div>
        </Alert>
      ) : null}

      {pages.data && entities.length === 0 ? (
        <EmptyState
          filtered={filtered}
          onCreate={() => setFormDialog({ mode: 'create' })}
          onClear={() => {
            setDraft('');
            applyFilter({ query: '', type: null });
          }}
        />
      ) : null}

      {entities.length > 0 ? (
        <section aria-label="Entities" className="grid gap-4">
          <p
            className={cn(
              'text-sm text-muted-foreground transition-opacity',
              pages.isPlaceholderData && 'opacity-60',
            )}
            aria-live="polite"
          >
            <span className="font-medium text-foreground">{entityCountLabel(total)}</span>
            {filtered ? ' found' : null}
          </p>
          <EntityGrid
            entities={entities}
            className={cn(pages.isPlaceholderData && 'opacity-60')}
            renderCard={(entity) => (
              <EntityCard
                key={entity.id}
                entity={entity}
                onView={setViewing}
                onEdit={(chosen) => setFormDialog({ mode: 'edit', entity: chosen })}
                onDelete={setDeleting}
              />
            )}
          />
          <div className="flex flex-col items-center gap-2 pt-2">
            {pages.hasNextPage ? (
              <p className="text-xs text-muted-foreground">
                Showing {formatCount(entities.length)} of {formatCount(total)}
              </p>
            ) : null}
            {pages.hasNextPage ? (
              <Button
                variant="outline"
                disabled={pages.isFetchingNextPage}
                onClick={() => void pages.fetchNextPage()}
              >
                {pages.isFetchingNextPage ? <Spinner /> : null}
                Load more
              </Button>
            ) : null}
            {pages.isFetchNextPageError ? (
              <p role="alert" className="text-xs text-destructive">
                Failed to load entities
              </p>
            ) : null}
          </div>
        </section>
      ) : null}

      <EntityFormDialog state={formDialog} onClose={() => setFormDialog(null)} />
      <ViewEntityDialog
        entity={viewing}
        onClose={() => setViewing(null)}
        onEdit={(entity) => {
          setViewing(null);
          setFormDialog({ mode: 'edit', entity });
        }}
      />
      <DeleteEntityDialog entity={deleting} onClose={() => setDeleting(null)} />
    </div>
  );
}

function EmptyState({
  filtered,
  onCreate,
  onClear,
}: {
  filtered: boolean;
  onCreate: () => void;
  onClear: () => void;
}) {
  return (
    <Card className="flex flex-col items-center px-6 py-12 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-primary-soft text-primary-soft-foreground">
        <Shapes className="size-5" aria-hidden />
      </div>
      <h2 className="mt-4 text-base font-semibold">No entities found</h2>
      <p className="mt-1 max-w-sm text-sm text-muted-foreground">
        Create your first entity to get started
      </p>
      <div className="mt-6 flex flex-wrap justify-center gap-2">
        {filtered ? (
          <Button variant="outline" onClick={onClear}>
            Clear filters
          </Button>
        ) : null}
        <Button onClick={onCreate}>
          <Plus aria-hidden />
          Create Entity
        </Button>
      </div>
    </Card>
  );
}
