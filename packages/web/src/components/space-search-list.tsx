import { useId, useState, type ReactNode } from 'react';
import { SearchField } from '@/components/search-field';
import { LoadingBlock, Spinner } from '@/components/ui/spinner';
import { useSpaceSearch } from '@/lib/api/spaces';
import { cn } from '@/lib/cn';

interface SpaceSearchListProps {
  /** radio: one space is picked; checkbox: any number. */
  type: 'radio' | 'checkbox';
  /** Whether the space with this slug is picked (its input is checked). */
  isPicked: (slug: string) => boolean;
  /** The input of the space with this slug was clicked: pick it, or toggle it. */
  onPick: (slug: string) => void;
  /** The choice cannot be sent yet (e.g. none picked): the search field says so. */
  invalid: boolean;
  /** Caps the scrolling list's height (a max-h-* class). */
  listClassName?: string;
  /** Shown above the search field, e.g. the picked spaces. */
  children?: ReactNode;
}

/**
 * The account's spaces to pick from, searched on the server by slug or name a
 * page at a time (an account may hold thousands), each with its slug and name.
 */
export function SpaceSearchList({
  type,
  isPicked,
  onPick,
  invalid,
  listClassName = 'max-h-44',
  children,
}: SpaceSearchListProps) {
  const name = useId();
  const [search, setSearch] = useState('');
  const found = useSpaceSearch(search);
  const { pages, spaces } = found;
  return (
    <div className="grid gap-2">
      {children}
      <SearchField
        aria-label="Search spaces"
        placeholder="Search spaces by slug or name..."
        autoComplete="off"
        maxLength={100}
        aria-invalid={invalid || undefined}
        busy={found.stale || (pages.isFetching && !pages.isFetchingNextPage && !pages.isPending)}
        value={search}
        onChange={(event) => setSearch(event.target.value)}
      />
      <div
        className={cn(
          'overflow-y-auto rounded-lg border border-border p-1',
          listClassName,
          found.stale && 'opacity-60',
        )}
      >
        {pages.isError && !pages.data ? (
          <p className="px-2 py-3 text-center text-sm text-destructive">Failed to load spaces</p>
        ) : pages.isPending ? (
          <LoadingBlock label="Loading spaces…" className="py-3" />
        ) : spaces.length === 0 ? (
          <p className="px-2 py-3 text-center text-sm text-muted-foreground">
            No spaces start with this text
          </p>
        ) : (
          <ul aria-label="Spaces" className="grid grid-cols-1">
            {spaces.map((space) => (
              <li key={space.id}>
                <label className="flex cursor-pointer items-center gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-muted">
                  <input
                    type={type}
                    // Radios need one name to be one group; checkboxes stand alone.
                    name={type === 'radio' ? `${name}-space` : undefined}
                    className="size-4 accent-[var(--color-primary)]"
                    checked={isPicked(space.slug)}
                    onChange={() => onPick(space.slug)}
                  />
                  <span className="min-w-0 flex-1 truncate font-mono text-xs">{space.slug}</span>
                  {space.name !== space.slug ? (
                    <span className="max-w-[50%] truncate text-xs text-muted-foreground">
                      {space.name}
                    </span>
                  ) : null}
                </label>
              </li>
            ))}
          </ul>
        )}
        {pages.hasNextPage ? (
          <button
            type="button"
            className="mt-1 inline-flex w-full cursor-pointer items-center justify-center gap-1.5 rounded-md px-2 py-1 text-xs font-medium text-primary hover:bg-muted disabled:cursor-default disabled:opacity-60"
            disabled={pages.isFetchingNextPage}
            onClick={() => void pages.fetchNextPage()}
          >
            {pages.isFetchingNextPage ? <Spinner /> : null}
            Load more spaces
          </button>
        ) : null}
      </div>
    </div>
  );
}
