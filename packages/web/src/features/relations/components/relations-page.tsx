import { typeLabel, type Relation, type TypeSummary } from '@engram/shared';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Plus, Search, Share2 } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
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
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useRelationPages } from '../api/list-relations';
import { relationTypePages, relationTypesKey } from '../api/list-relation-types';
import { formatCount, relationCountLabel } from '../display';
import { filterRelations, relationTypeOptions } from '../relation-rules';
import { DeleteRelationDialog } from './delete-relation-dialog';
import { RelationFormDialog, type RelationFormDialogState } from './relation-form-dialog';
import { RelationTable } from './relation-table';

const ALL_TYPES = 'all';
const ALL_TYPES_OPTIONS = [{ value: ALL_TYPES, label: 'All Types' }];
const typeChoice = (type: string) => `type:${type}`;
const typeFilterOptions = (types: TypeSummary[]) =>
  relationTypeOptions(types).map((option) => ({
    value: typeChoice(option.type),
    label: option.label,
  }));
/** Typing pauses this long before the server is searched; the rows on screen filter at once. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * Relation Management (/relations, spec §2): a table of relations read from
 * the server 100 at a time, searched by either end's name or the type and
 * filtered by type on the server (so any relation of a large graph can be
 * found), with the create, edit and delete dialogs.
 */
export function RelationsPage() {
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(() => params.get('q') ?? '');
  const type = params.get('type') || null;
  const settled = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const filter = useMemo(() => ({ query: settled.trim(), type }), [settled, type]);

  // The search lives in the address too, so Back returns to the same rows.
  useEffect(() => {
    if ((params.get('q') ?? '') === filter.query) return;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (filter.query) next.set('q', filter.query);
        else next.delete('q');
        return next;
      },
      { replace: true },
    );
  }, [filter.query, params, setParams]);

  const pages = useRelationPages(filter);
  // The type filter's first page (shared with the picker): the chosen type's count, when on it.
  const firstTypes = useInfiniteQuery(relationTypePages(''));
  const queryClient = useQueryClient();
  const [formDialog, setFormDialog] = useState<RelationFormDialogState>(null);
  const [deleting, setDeleting] = useState<Relation | null>(null);

  useEffect(() => {
    if (pages.isError) toast.error('Failed to load relations');
  }, [pages.isError, pages.errorUpdatedAt]);

  function chooseType(choice: string) {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (choice === ALL_TYPES) next.delete('type');
        else next.set('type', choice.slice('type:'.length));
        return next;
      },
      { replace: true },
    );
  }

  const loaded = pages.data?.pages.flatMap((page) => page.relations) ?? [];
  // The server answered for the settled search; the rows on screen follow each keystroke.
  const relations = filterRelations(loaded, { query: search, type });
  const total = pages.data?.pages[0]?.total ?? 0;
  const chosen = relationTypeOptions(
    firstTypes.data?.pages.flatMap((page) => page.types) ?? [],
  ).find((option) => option.type === type);
  const chosenTypeLabel = chosen ? chosen.label : type ? typeLabel(type) : null;
  const filtered = search.trim() !== '' || type !== null;
  const stale = pages.isPlaceholderData || settled !== search;

  return (
    <div className="grid gap-6">
      <title>Relations · Engram</title>
      <PageHeader
        title="Relation Management"
        description="Connect entities with typed relations"
        actions={
          <>
            <RefreshButton
              disabled={pages.isFetching && !pages.isFetchingNextPage}
              spinning={pages.isRefetching && !pages.isFetchingNextPage}
              onClick={() => {
                void pages.refetch();
                void queryClient.invalidateQueries({ queryKey: relationTypesKey });
              }}
            />
            <Button onClick={() => setFormDialog({ mode: 'create' })}>
              <Plus aria-hidden />
              Create Relation
            </Button>
          </>
        }
      />

      <Card className="p-4">
        <div
          role="search"
          aria-label="Filter relations"
          className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_16rem]"
        >
          <div className="relative">
            {settled !== search || (pages.isFetching && pages.isPlaceholderData) ? (
              <Spinner className="absolute top-1/2 left-3 -translate-y-1/2 text-muted-foreground" />
            ) : (
              <Search
                className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
                aria-hidden
              />
            )}
            <Input
              type="search"
              aria-label="Search relations"
              placeholder="Search by entity name or relation type..."
              className="pl-9"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
          </div>
          <TypePicker
            label="Relation type"
            value={type ? typeChoice(type) : ALL_TYPES}
            display={type ? chosenTypeLabel : 'All Types'}
            placeholder="All Types"
            searchLabel="Search relation types"
            pages={relationTypePages}
            leading={ALL_TYPES_OPTIONS}
            optionsFor={typeFilterOptions}
            onChange={chooseType}
          />
        </div>
      </Card>

      {pages.isPending ? (
        <Card
          role="status"
          className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
        >
          <Spinner />
          Loading relations...
        </Card>
      ) : null}

      {pages.isError && !pages.data ? (
        <Alert variant="error">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
            <span>Failed to load relations</span>
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

      {pages.data && relations.length === 0 && !stale ? (
        <EmptyState
          filtered={filtered}
          onCreate={() => setFormDialog({ mode: 'create' })}
          onClear={() => {
            setSearch('');
            chooseType(ALL_TYPES);
          }}
        />
      ) : null}

      {pages.data && (relations.length > 0 || stale) ? (
        <section aria-label="Relations" className="grid gap-4">
          <p className="text-sm text-muted-foreground" aria-live="polite">
            <span className="font-medium text-foreground">{relationCountLabel(total)}</span>
            {filter.query || filter.type ? ' found' : null}
          </p>
          <Card className={cn('overflow-hidden transition-opacity', stale && 'opacity-60')}>
            <RelationTable
              relations={relations}
              onEdit={(relation) => setFormDialog({ mode: 'edit', relation })}
              onDelete={setDeleting}
            />
          </Card>
          <div className="flex flex-col items-center gap-2 pt-2">
            {pages.hasNextPage ? (
              <p className="text-xs text-muted-foreground">
                Showing {formatCount(loaded.length)} of {formatCount(total)}
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
          </div>
        </section>
      ) : null}

      <RelationFormDialog state={formDialog} onClose={() => setFormDialog(null)} />
      <DeleteRelationDialog relation={deleting} onClose={() => setDeleting(null)} />
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
        <Share2 className="size-5" aria-hidden />
      </div>
      <h2 className="mt-4 text-base font-semibold">No relations found</h2>
      <p className="mt-1 max-w-sm text-sm text-muted-foreground">
        Create your first relation to get started
      </p>
      <div className="mt-6 flex flex-wrap justify-center gap-2">
        {filtered ? (
          <Button variant="outline" onClick={onClear}>
            Clear filters
          </Button>
        ) : null}
        <Button onClick={onCreate}>
          <Plus aria-hidden />
          Create Relation
        </Button>
      </div>
    </Card>
  );
}
