import { ChevronsUpDown, Layers, Plus } from 'lucide-react';
import { useState } from 'react';
import { useLocation } from 'react-router';
import { NewSpaceDialog } from '@/components/new-space-dialog';
import { PickerLoadMore } from '@/components/load-more';
import { PickerOption, PickerSearch } from '@/components/ui/picker';
import { usePickerList } from '@/components/ui/picker-list';
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover';
import { useCan } from '@/lib/account';
import { useSpaceDetail, useSpaceSearch } from '@/lib/api/spaces';
import { cn } from '@/lib/cn';
import { ALL_SPACES, useSpace } from '@/lib/space';

export const ALL_SPACES_LABEL = 'All spaces';

interface SwitcherOption {
  slug: string;
  name: string;
}

/**
 * The memory space the signed-in app shows, in the header: its name, and a
 * list to choose another (searched on the server as the person types, a page
 * at a time), "New space…", and on the dashboard "All spaces" (the account's
 * counts). Choosing keeps the screen and changes `?space=`. A viewer, who
 * reads only, is not offered "New space…" (lib/account/role-rules.ts).
 */
export function SpaceSwitcher() {
  const space = useSpace();
  const onDashboard = useLocation().pathname === '/dashboard';
  const allSpaces = space.allSpaces && onDashboard;
  const current = useSpaceDetail(space.slug);
  const currentName = allSpaces ? ALL_SPACES_LABEL : (current.data?.name ?? space.slug);

  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const canCreate = useCan('createSpace');
  const [search, setSearch] = useState('');
  const found = useSpaceSearch(search, open);

  const leading: SwitcherOption[] = onDashboard
    ? [{ slug: ALL_SPACES, name: ALL_SPACES_LABEL }]
    : [];
  const options: SwitcherOption[] = [
    ...leading,
    ...found.spaces.map(({ slug, name }) => ({ slug, name })),
  ];
  const chosen = allSpaces ? ALL_SPACES : space.slug;
  const searching = found.stale || (found.pages.isFetching && !found.pages.isFetchingNextPage);
  const list = usePickerList({ options, stale: found.stale, onPick: pick });

  function openChange(next: boolean) {
    setOpen(next);
    list.restart();
    if (!next) setSearch('');
  }

  function pick(option: SwitcherOption) {
    openChange(false);
    if (option.slug !== chosen) space.choose(option.slug);
  }

  return (
    <>
      <Popover open={open} onOpenChange={openChange}>
        <PopoverTrigger asChild>
          <button
            type="button"
            aria-haspopup="listbox"
            aria-expanded={open}
            aria-label={`Memory space: ${currentName}`}
            title={currentName}
            className="inline-flex h-9 max-w-28 min-w-0 cursor-pointer items-center xl:shrink-0 gap-2 rounded-lg border border-border bg-card px-2.5 text-sm font-medium outline-none hover:bg-muted focus-visible:ring-2 focus-visible:ring-ring data-[state=open]:bg-muted sm:max-w-56"
          >
            <Layers className="hidden size-4 shrink-0 text-muted-foreground sm:block" aria-hidden />
            <span className="truncate">{currentName}</span>
            <ChevronsUpDown className="size-4 shrink-0 text-muted-foreground" aria-hidden />
          </button>
        </PopoverTrigger>
        <PopoverContent className="w-72 max-w-[calc(100vw-2rem)] p-0" align="end">
          <PickerSearch
            {...list.search}
            searching={searching}
            aria-label="Filter spaces"
            placeholder="Filter spaces..."
            autoComplete="off"
            maxLength={100}
            value={search}
            onChange={list.typed(setSearch)}
          />
          <ul
            {...list.list}
            aria-label="Spaces"
            className={cn('max-h-72 overflow-y-auto p-1', found.stale && 'opacity-60')}
          >
            {options.map((option, index) => (
              <PickerOption
                key={option.slug}
                {...list.option(index)}
                selected={option.slug === chosen}
                className={cn(
                  index === leading.length &&
                    leading.length > 0 &&
                    'mt-1 rounded-t-none border-t border-border pt-2',
                )}
              >
                <span className="min-w-0 flex-1 truncate">{option.name}</span>
                {option.slug !== ALL_SPACES && option.slug !== option.name ? (
                  <span
                    aria-hidden
                    className="max-w-[45%] shrink-0 truncate font-mono text-xs text-muted-foreground"
                  >
                    {option.slug}
                  </span>
                ) : null}
              </PickerOption>
            ))}
          </ul>
          {found.pages.data && found.spaces.length === 0 && !searching ? (
            <p className="px-3 pb-3 pt-1 text-center text-sm text-muted-foreground">
              No spaces start with this text
            </p>
          ) : null}
          {found.pages.isError && !found.pages.isFetchNextPageError ? (
            <p className="px-3 pb-3 pt-1 text-center text-sm text-destructive">
              Failed to load spaces
            </p>
          ) : null}
          <PickerLoadMore pages={found.pages}>Load more spaces</PickerLoadMore>
          {canCreate ? (
            <div className="border-t border-border p-1">
              <button
                type="button"
                className="flex w-full cursor-pointer items-center gap-2 rounded-md px-2 py-1.5 text-sm outline-none hover:bg-muted focus-visible:bg-muted"
                onClick={() => {
                  openChange(false);
                  setCreating(true);
                }}
              >
                <Plus className="size-4 text-muted-foreground" aria-hidden />
                New space…
              </button>
            </div>
          ) : null}
        </PopoverContent>
      </Popover>
      <NewSpaceDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(created) => space.choose(created.slug)}
      />
    </>
  );
}
