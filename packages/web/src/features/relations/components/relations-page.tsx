import { typeLabel, type Relation } from '@engram/shared';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Share2 } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { ListEmptyState, ListLoading, ListPageActions, LoadMore } from '@/components/list-page';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Page } from '@/components/page';
import { SearchField } from '@/components/search-field';
import { TypeFilter } from '@/components/type-filter';
import { Card } from '@/components/ui/card';
import { useCan, VIEWER_READ_ONLY } from '@/lib/account';
import { cn } from '@/lib/cn';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useRelationPages } from '../api/list-relations';
import { relationTypesKey, useRelationTypePages } from '../api/list-relation-types';
import { relationCountLabel } from '../display';
import { filterRelations, relationTypeOptions } from '../relation-rules';
import { DeleteRelationDialog } from './delete-relation-dialog';
import { RelationFormDialog, type RelationFormDialogState } from './relation-form-dialog';
import { RelationTable } from './relation-table';

/** Typing pauses this long before the server is searched; the rows on screen filter at once. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * Relation Management (/relations; docs/product.md, The signed-in app): a table of relations read from
 * the server 100 at a time, searched by either end's name or the type and
 * filtered by type on the server (so any relation of a large graph can be
 * found), with the create, edit and delete dialogs (not for a viewer, who
 * reads only: lib/account/role-rules.ts).
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
  const relationTypePages = useRelationTypePages();
  const firstTypes = useInfiniteQuery(relationTypePages(''));
  const queryClient = useQueryClient();
  const canEdit = useCan('editGraph');
  const [formDialog, setFormDialog] = useState<RelationFormDialogState>(null);
  const [deleting, setDeleting] = useState<Relation | null>(null);

  useEffect(() => {
    if (pages.isError) toast.error('Failed to load relations');
  }, [pages.isError, pages.errorUpdatedAt]);

  function chooseType(choice: string | null) {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (choice === null) next.delete('type');
        else next.set('type', choice);
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
    <Page
      title="Relation Management"
      tabTitle="Relations"
      description={canEdit ? 'Connect entities with typed relations' : VIEWER_READ_ONLY}
      actions={
        <ListPageActions
          pages={pages}
          onRefresh={() => {
            void pages.refetch();
            void queryClient.invalidateQueries({ queryKey: relationTypesKey });
          }}
          createLabel="Create Relation"
          onCreate={canEdit ? () => setFormDialog({ mode: 'create' }) : undefined}
        />
      }
    >
      <Card className="p-4">
        <div
          role="search"
          aria-label="Filter relations"
          className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_16rem]"
        >
          <SearchField
            busy={settled !== search || (pages.isFetching && pages.isPlaceholderData)}
            aria-label="Search relations"
            placeholder="Search by entity name or relation type..."
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
          <TypeFilter
            label="Relation type"
            searchLabel="Search relation types"
            pages={relationTypePages}
            type={type}
            display={chosenTypeLabel}
            options={relationTypeOptions}
            onChange={chooseType}
          />
        </div>
      </Card>

      {pages.isPending ? <ListLoading>Loading relations...</ListLoading> : null}

      {pages.isError && !pages.data ? (
        <LoadErrorAlert onRetry={() => void pages.refetch()}>
          Failed to load relations
        </LoadErrorAlert>
      ) : null}

      {pages.data && relations.length === 0 && !stale ? (
        <ListEmptyState
          icon={Share2}
          title="No relations found"
          description={
            canEdit
              ? 'Create your first relation to get started'
              : 'This space has no relations yet'
          }
          createLabel="Create Relation"
          onCreate={canEdit ? () => setFormDialog({ mode: 'create' }) : undefined}
          filtered={filtered}
          onClear={() => {
            setSearch('');
            chooseType(null);
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
              onEdit={canEdit ? (relation) => setFormDialog({ mode: 'edit', relation }) : undefined}
              onDelete={canEdit ? setDeleting : undefined}
            />
          </Card>
          <LoadMore pages={pages} shown={loaded.length} total={total} />
        </section>
      ) : null}

      <RelationFormDialog state={formDialog} onClose={() => setFormDialog(null)} />
      <DeleteRelationDialog relation={deleting} onClose={() => setDeleting(null)} />
    </Page>
  );
}
