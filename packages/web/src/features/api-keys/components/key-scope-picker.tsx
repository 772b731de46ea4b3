import type { Access } from '@engram/shared';
import { X } from 'lucide-react';
import { useId, useState } from 'react';
import { SearchField } from '@/components/search-field';
import { Spinner } from '@/components/ui/spinner';
import { useSpaceSearch } from '@/lib/api/spaces';
import { cn } from '@/lib/cn';
import type { ScopeChoice, ScopeReach } from '../key-scope';

interface KeyScopePickerProps {
  value: ScopeChoice;
  onChange: (next: ScopeChoice) => void;
  /** Why the choice cannot be sent (no space picked), once the person tried. */
  error?: string | null | undefined;
}

const RADIO = 'size-4 accent-[var(--color-primary)]';

/**
 * What a new key may touch: every space or the ones picked (searched on the
 * server by slug or name, a page at a time), read only or read and write.
 */
export function KeyScopePicker({ value, onChange, error }: KeyScopePickerProps) {
  const errorId = useId();
  return (
    <div className="grid gap-3">
      <fieldset className="grid gap-2" aria-describedby={error ? errorId : undefined}>
        <legend className="mb-2 text-sm font-medium">Access</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {(
            [
              ['all', 'All spaces'],
              ['chosen', 'Chosen spaces'],
            ] as [ScopeReach, string][]
          ).map(([reach, label]) => (
            <label key={reach} className="inline-flex cursor-pointer items-center gap-2 text-sm">
              <input
                type="radio"
                name="key-reach"
                className={RADIO}
                checked={value.reach === reach}
                onChange={() => onChange({ ...value, reach })}
              />
              {label}
            </label>
          ))}
        </div>
        {value.reach === 'chosen' ? (
          <SpaceChoices
            slugs={value.slugs}
            onChange={(slugs) => onChange({ ...value, slugs })}
            invalid={Boolean(error)}
          />
        ) : null}
        {error ? (
          <p id={errorId} className="text-xs text-destructive">
            {error}
          </p>
        ) : null}
      </fieldset>
      <fieldset className="grid gap-2">
        <legend className="sr-only">Permission</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {(
            [
              ['read', 'Read only'],
              ['write', 'Read and write'],
            ] as [Access, string][]
          ).map(([access, label]) => (
            <label key={access} className="inline-flex cursor-pointer items-center gap-2 text-sm">
              <input
                type="radio"
                name="key-access"
                className={RADIO}
                checked={value.access === access}
                onChange={() => onChange({ ...value, access })}
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  );
}

/** The picked spaces as removable chips, and a searchable list of checkboxes to pick more. */
function SpaceChoices({
  slugs,
  onChange,
  invalid,
}: {
  slugs: readonly string[];
  onChange: (slugs: string[]) => void;
  invalid: boolean;
}) {
  const [search, setSearch] = useState('');
  const found = useSpaceSearch(search);
  const { pages, spaces } = found;
  const picked = new Set(slugs);

  function toggle(slug: string) {
    onChange(picked.has(slug) ? slugs.filter((s) => s !== slug) : [...slugs, slug]);
  }

  return (
    <div className="grid gap-2">
      {slugs.length ? (
        <ul aria-label="Chosen spaces" className="flex flex-wrap gap-1.5">
          {slugs.map((slug) => (
            <li
              key={slug}
              className="inline-flex items-center gap-1 rounded-md border border-border bg-muted py-0.5 pr-0.5 pl-2 font-mono text-xs"
            >
              {slug}
              <button
                type="button"
                aria-label={`Remove ${slug}`}
                className="inline-flex size-5 cursor-pointer items-center justify-center rounded text-muted-foreground outline-none hover:bg-border hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
                onClick={() => toggle(slug)}
              >
                <X className="size-3" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
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
          'max-h-44 overflow-y-auto rounded-lg border border-border p-1',
          found.stale && 'opacity-60',
        )}
      >
        {pages.isError && !pages.data ? (
          <p className="px-2 py-3 text-center text-sm text-destructive">Failed to load spaces</p>
        ) : pages.isPending ? (
          <div className="flex justify-center py-3" aria-busy>
            <Spinner className="text-muted-foreground" />
            <span className="sr-only">Loading spaces…</span>
          </div>
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
                    type="checkbox"
                    className="size-4 accent-[var(--color-primary)]"
                    checked={picked.has(space.slug)}
                    onChange={() => toggle(space.slug)}
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
