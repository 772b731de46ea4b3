import type { ReactNode } from 'react';
import { PendingButton } from '@/components/pending-button';
import type { ButtonProps } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

/** The paging half of an infinite query (TanStack Query's `useInfiniteQuery`). */
export interface NextPages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** Fetches a list's next page, with a spinner while it comes. */
export function LoadMoreButton({
  pages,
  children = 'Load more',
  size,
}: {
  pages: NextPages;
  children?: ReactNode;
  size?: ButtonProps['size'];
}) {
  return (
    <PendingButton
      variant="outline"
      size={size}
      pending={pages.isFetchingNextPage}
      onClick={() => void pages.fetchNextPage()}
    >
      {children}
    </PendingButton>
  );
}

/** A picker's footer while more options can be fetched: a hint to search, and "load more". */
export function PickerLoadMore({ pages, children }: { pages: NextPages; children: ReactNode }) {
  if (!pages.hasNextPage) return null;
  return (
    <div className="flex items-center justify-between gap-2 border-t border-border px-3 py-1.5">
      <span className="text-xs text-muted-foreground">Type to search</span>
      <button
        type="button"
        className="inline-flex cursor-pointer items-center gap-1.5 rounded-md px-2 py-1 text-xs font-medium text-primary hover:bg-muted disabled:cursor-default disabled:opacity-60"
        disabled={pages.isFetchingNextPage}
        onClick={() => void pages.fetchNextPage()}
      >
        {pages.isFetchingNextPage ? <Spinner /> : null}
        {children}
      </button>
    </div>
  );
}
