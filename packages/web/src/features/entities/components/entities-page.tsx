import { typeLabel, type Entity, type TypeSummary } from '@engram/shared';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Merge, Search, Shapes } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { ListEmptyState, ListLoading, ListPageActions, LoadMore } from '@/components/list-page';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Page } from '@/components/page';
import { SearchField } from '@/components/search-field';
import { TypeFilter, typeWithCount } from '@/components/type-filter';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useCan, VIEWER_READ_ONLY } from '@/lib/account';
import { cn } from '@/lib/cn';
import { useEntityPages, type EntityFilter } from '../api/list-entities';
import { useDuplicateCount } from '@/lib/api/duplicates';
import { entityTypesKey, useEntityTypePages } from '@/lib/api/entities';
import { entityCountLabel, formatCount } from '../display';
import { DeleteEntityDialog } from './delete-entity-dialog';
import { EntityCard } from './entity-card';
import { EntityFormDialog, type EntityFormDialogState } from './entity-form-dialog';
import { EntityGrid } from './entity-grid';
import { ViewEntityDialog } from './view-entity-dialog';

/** 'Person (1,666)': each type with its count (docs/product.md, The signed-in app). */
const typeFilterOptions = (types: TypeSummary[]) =>
  types.map((summary) => ({ type: summary.type, label: typeWithCount(summary) }));

/**
 * Entity Management (/entities; docs/product.md, The signed-in app): search and filter, a grid of
 * entity cards read from the server 100 at a time (only the rows on screen
 * are in the page), and the create, view, edit and delete dialogs. The search and type live in the address, so Back
 * from an entity's page returns to the same results.
 *
 * Arriving with ?create=1 opens Create Entity (the dashboard's quick action),
 * with ?focus=search focuses the search box; either is then dropped from the
 * address so a reload does not repeat it. A viewer is offered no create,
 * edit or delete (lib/account/role-rules.ts): the header says they read only.
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
  const entityTypePages = useEntityTypePages();
  const firstTypes = useInfiniteQuery(entityTypePages(''));
  const queryClient = useQueryClient();
  const canEdit = useCan('editGraph');

  // Arriving with ?create=1 (the dashboard's Create Entity) opens the form at once.
  const [formDialog, setFormDialog] = useState<EntityFormDialogState>(() =>
    params.get('create') === '1' && canEdit ? { mode: 'create' } : null,
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
    ? typeWithCount(chosen)
    : filter.type
      ? typeLabel(filter.type)
      : null;
  const entities = pages.data?.pages.flatMap((page) => page.entities) ?? [];
  const total = pages.data?.pages[0]?.total ?? 0;
  const filtered = filter.query !== '' || filter.type !== null;

  return (
    <Page
      title="Entity Management"
      tabTitle="Entities"
      description={
        canEdit ? 'Create, browse and edit the entities in your knowledge graph' : VIEWER_READ_ONLY
      }
      actions={
        <ListPageActions
          pages={pages}
          onRefresh={() => {
            void pages.refetch();
            void queryClient.invalidateQueries({ queryKey: entityTypesKey });
          }}
          createLabel="Create Entity"
          onCreate={canEdit ? () => setFormDialog({ mode: 'create' }) : undefined}
        />
      }
    >
      <Card className="p-4">
        <form
          role="search"
          aria-label="Filter entities"
          onSubmit={search}
          className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_14rem_auto]"
        >
          <SearchField
            ref={searchRef}
            aria-label="Search entities"
            placeholder="Search by name, type or observation..."
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
          <TypeFilter
            label="Entity type"
            searchLabel="Search entity types"
            pages={entityTypePages}
            type={filter.type}
            display={chosenTypeLabel}
            options={typeFilterOptions}
            onChange={(type) => applyFilter({ query: draft, type })}
          />
          <Button type="submit" variant="secondary">
            <Search aria-hidden />
            Search
          </Button>
        </form>
      </Card>

      {pages.isPending ? <ListLoading>Loading entities...</ListLoading> : null}

      {loadFailed && !pages.data ? (
        <LoadErrorAlert onRetry={() => void pages.refetch()}>
          Failed to load entities
        </LoadErrorAlert>
      ) : null}

      {pages.data && entities.length === 0 ? (
        <ListEmptyState
          icon={Shapes}
          title="No entities found"
          description={
            canEdit ? 'Create your first entity to get started' : 'This space has no entities yet'
          }
          createLabel="Create Entity"
          onCreate={canEdit ? () => setFormDialog({ mode: 'create' }) : undefined}
          filtered={filtered}
          onClear={() => {
            setDraft('');
            applyFilter({ query: '', type: null });
          }}
        />
      ) : null}

      {entities.length > 0 ? (
        <section aria-label="Entities" className="grid gap-4">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
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
            <ReviewDuplicatesLink />
          </div>
          <EntityGrid
            entities={entities}
            className={cn(pages.isPlaceholderData && 'opacity-60')}
            renderCard={(entity) => (
              <EntityCard
                key={entity.id}
                entity={entity}
                onView={setViewing}
                onEdit={
                  canEdit ? (chosen) => setFormDialog({ mode: 'edit', entity: chosen }) : undefined
                }
                onDelete={canEdit ? setDeleting : undefined}
              />
            )}
          />
          <LoadMore
            pages={pages}
            shown={entities.length}
            total={total}
            error={pages.isFetchNextPageError ? 'Failed to load entities' : null}
          />
        </section>
      ) : null}

      <EntityFormDialog state={formDialog} onClose={() => setFormDialog(null)} />
      <ViewEntityDialog
        entity={viewing}
        onClose={() => setViewing(null)}
        onEdit={
          canEdit
            ? (entity) => {
                setViewing(null);
                setFormDialog({ mode: 'edit', entity });
              }
            : undefined
        }
      />
      <DeleteEntityDialog entity={deleting} onClose={() => setDeleting(null)} />
    </Page>
  );
}

/**
 * 'Review duplicates (3)' to /duplicates while the space has likely
 * duplicates (issue 59): counted on one page of 100, '100+' past it; nothing
 * while there are none, or the count could not be read.
 */
function ReviewDuplicatesLink() {
  const duplicates = useDuplicateCount();
  if (!duplicates.data || duplicates.data.count === 0) return null;
  const { count, more } = duplicates.data;
  return (
    <Link
      to="/duplicates"
      className="inline-flex items-center gap-1.5 text-sm font-medium text-primary underline-offset-4 outline-none hover:underline focus-visible:underline"
    >
      <Merge className="size-4" aria-hidden />
      Review duplicates ({more ? `${formatCount(count)}+` : formatCount(count)})
    </Link>
  );
}
