import type { LucideIcon } from 'lucide-react';
import { Plus } from 'lucide-react';
import type { ReactNode } from 'react';
import { EmptyState } from '@/components/empty-state';
import { LoadMoreButton } from '@/components/load-more';
import { RefreshButton } from '@/components/refresh-button';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { formatCount } from '@/lib/format';

// The parts Entity Management and Relation Management share: a list read
// from the server page by page, with Refresh and Create in the header, a
// loading card, and 'Load more' under the list.

/** What these parts read of a TanStack `useInfiniteQuery` result. */
interface Pages {
  isFetching: boolean;
  isRefetching: boolean;
  isFetchingNextPage: boolean;
  hasNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/**
 * The header's Refresh (the list and whatever else `onRefresh` reloads) and
 * Create buttons; without `onCreate` (a role that may not create), Refresh alone.
 */
export function ListPageActions({
  pages,
  onRefresh,
  createLabel,
  onCreate,
}: {
  pages: Pages;
  onRefresh: () => void;
  createLabel: string;
  onCreate?: () => void;
}) {
  return (
    <>
      <RefreshButton
        disabled={pages.isFetching && !pages.isFetchingNextPage}
        spinning={pages.isRefetching && !pages.isFetchingNextPage}
        onClick={onRefresh}
      />
      {onCreate ? <CreateButton label={createLabel} onClick={onCreate} /> : null}
    </>
  );
}

function CreateButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button onClick={onClick}>
      <Plus aria-hidden />
      {label}
    </Button>
  );
}

/**
 * Nothing to list: Create (unless `onCreate` is left out: a role that may not
 * create), and 'Clear filters' when a filter is what hides the rows.
 */
export function ListEmptyState({
  icon,
  title,
  description,
  createLabel,
  onCreate,
  filtered,
  onClear,
}: {
  icon: LucideIcon;
  title: string;
  description: string;
  createLabel: string;
  onCreate?: () => void;
  filtered: boolean;
  onClear: () => void;
}) {
  return (
    <EmptyState
      icon={icon}
      title={title}
      description={description}
      actions={
        filtered || onCreate ? (
          <>
            {filtered ? (
              <Button variant="outline" onClick={onClear}>
                Clear filters
              </Button>
            ) : null}
            {onCreate ? <CreateButton label={createLabel} onClick={onCreate} /> : null}
          </>
        ) : undefined
      }
    />
  );
}

/** The first page is on its way, e.g. 'Loading entities...'. */
export function ListLoading({ children }: { children: ReactNode }) {
  return (
    <Card
      role="status"
      className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
    >
      <Spinner />
      {children}
    </Card>
  );
}

/** 'Showing 100 of 1,234' and 'Load more' while the server has more; `error` when the next page failed. */
export function LoadMore({
  pages,
  shown,
  total,
  error,
}: {
  pages: Pages;
  shown: number;
  total: number;
  error?: ReactNode;
}) {
  return (
    <div className="flex flex-col items-center gap-2 pt-2">
      {pages.hasNextPage ? (
        <p className="text-xs text-muted-foreground">
          Showing {formatCount(shown)} of {formatCount(total)}
        </p>
      ) : null}
      {pages.hasNextPage ? <LoadMoreButton pages={pages} /> : null}
      {error ? (
        <p role="alert" className="text-xs text-destructive">
          {error}
        </p>
      ) : null}
    </div>
  );
}
