import type { TypeList, TypeSummary } from '@engram/shared';
import {
  keepPreviousData,
  useInfiniteQuery,
  useQueryClient,
  type InfiniteData,
  type UseInfiniteQueryOptions,
} from '@tanstack/react-query';
import { ChevronDown } from 'lucide-react';
import { useState, type ReactNode, type Ref } from 'react';
import { PickerLoadMore } from '@/components/load-more';
import { PickerOption, PickerSearch, pickerTriggerClass } from '@/components/ui/picker';
import { usePickerList } from '@/components/ui/picker-list';
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover';
import { cn } from '@/lib/cn';
import { useDebouncedValue } from '@/lib/use-debounced-value';

/** Typing pauses this long before the server is asked. */
export const TYPE_SEARCH_DEBOUNCE_MS = 250;

export interface TypePickerOption {
  /** What `onChange` receives; unique in the list. */
  value: string;
  /** The option's text, and its accessible name. */
  label: string;
  /** Shown before the label (a colour dot). */
  icon?: ReactNode;
  /** Shown after the label, quieter, and left out of its accessible name (the stored 'depends_on' of 'Depends on'). */
  hint?: string;
}

/** The server's pages of the types starting with a prefix (`infiniteQueryOptions` of a feature's api). */
export type TypePagesQuery = (
  prefix: string,
) => UseInfiniteQueryOptions<TypeList, Error, InfiniteData<TypeList>, string[], string | null>;

interface TypePickerProps {
  id?: string | undefined;
  ref?: Ref<HTMLButtonElement>;
  /** The accessible name of the closed picker, when no `<label>` names it. */
  label?: string;
  /** The chosen option's value; null when nothing is chosen. */
  value: string | null;
  /** What the closed picker shows; the placeholder when null. */
  display: ReactNode | null;
  placeholder: string;
  /** The accessible name of the search box in the open list, e.g. 'Search entity types'. */
  searchLabel: string;
  pages: TypePagesQuery;
  /** The options for the types loaded so far (most common first) and the search they answer. */
  optionsFor: (types: TypeSummary[], prefix: string) => TypePickerOption[];
  /** Always offered, before the types ('All Types') and after them ('Custom Type...'). */
  leading?: TypePickerOption[];
  trailing?: TypePickerOption[];
  /** The chosen value, and the search text it was chosen with. */
  onChange: (value: string, search: string) => void;
  invalid?: boolean | undefined;
  describedBy?: string | undefined;
  onCloseAutoFocus?: (event: Event) => void;
}

/**
 * A type chosen from the account's types, which may number tens of thousands:
 * the list shows the server's first page (most common first) and searches the
 * server by prefix as the person types (debounced); 'Load more' reads the
 * next page. Arrow keys move through the options, Enter picks, Escape closes.
 */
export function TypePicker({
  id,
  ref,
  label,
  value,
  display,
  placeholder,
  searchLabel,
  pages,
  optionsFor,
  leading = [],
  trailing = [],
  onChange,
  invalid = false,
  describedBy,
  onCloseAutoFocus,
}: TypePickerProps) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const settled = useDebouncedValue(search, TYPE_SEARCH_DEBOUNCE_MS).trim();
  // The first page is read with the screen, so the list opens at once.
  const types = useInfiniteQuery({ ...pages(settled), placeholderData: keepPreviousData });
  const queryClient = useQueryClient();

  const loaded = types.data?.pages.flatMap((page) => page.types) ?? [];
  const typeOptions = optionsFor(loaded, settled);
  const options = [...leading, ...typeOptions, ...trailing];
  const stale = settled !== search.trim() || types.isPlaceholderData;
  const searching = stale || (types.isFetching && !types.isFetchingNextPage);
  const list = usePickerList({ options, stale, onPick: pick });

  function openChange(next: boolean) {
    setOpen(next);
    list.restart();
    if (next) return;
    // Every opening starts from the whole list's first page: pages read with
    // 'Load more' are let go, so live updates refetch one page, not all of them.
    for (const prefix of new Set([settled, ''])) {
      queryClient.setQueryData<InfiniteData<TypeList>>(pages(prefix).queryKey, (data) =>
        data && data.pages.length > 1
          ? { pages: data.pages.slice(0, 1), pageParams: data.pageParams.slice(0, 1) }
          : data,
      );
    }
    setSearch('');
  }

  function pick(option: TypePickerOption) {
    onChange(option.value, search.trim());
    openChange(false);
  }

  return (
    <Popover open={open} onOpenChange={openChange} modal>
      <PopoverTrigger asChild>
        <button
          ref={ref}
          id={id}
          type="button"
          role="combobox"
          aria-label={label}
          aria-haspopup="listbox"
          aria-expanded={open}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          className={cn(pickerTriggerClass, 'text-foreground')}
        >
          <span className={cn('truncate', display === null && 'text-muted-foreground')}>
            {display ?? placeholder}
          </span>
          <ChevronDown className="size-4 shrink-0 text-muted-foreground" aria-hidden />
        </button>
      </PopoverTrigger>
      <PopoverContent
        className="w-[var(--radix-popover-trigger-width)] min-w-64 p-0"
        onCloseAutoFocus={onCloseAutoFocus}
      >
        <PickerSearch
          {...list.search}
          searching={searching}
          aria-label={searchLabel}
          placeholder="Search types..."
          autoComplete="off"
          maxLength={100}
          value={search}
          onChange={list.typed(setSearch)}
        />
        <ul
          {...list.list}
          aria-label="Types"
          className={cn('max-h-64 overflow-y-auto p-1', stale && 'opacity-60')}
        >
          {options.map((option, index) => {
            // A line between the fixed options and the types, and after the types.
            const divided =
              (index === leading.length && leading.length > 0) ||
              (index === leading.length + typeOptions.length && index > 0);
            return (
              <PickerOption
                key={option.value}
                {...list.option(index)}
                selected={option.value === value}
                className={cn(divided && 'mt-1 rounded-t-none border-t border-border pt-2')}
              >
                {option.icon}
                <span className="min-w-0 flex-1 truncate">{option.label}</span>
                {option.hint ? (
                  <span
                    aria-hidden
                    className="max-w-[45%] shrink-0 truncate font-mono text-xs text-muted-foreground"
                  >
                    {option.hint}
                  </span>
                ) : null}
              </PickerOption>
            );
          })}
        </ul>
        {types.data && typeOptions.length === 0 && !searching ? (
          <p className="px-3 pb-3 pt-1 text-center text-sm text-muted-foreground">
            {settled ? 'No types start with this text' : 'No types yet'}
          </p>
        ) : null}
        {types.isError && !types.isFetchNextPageError ? (
          <p className="px-3 pb-3 pt-1 text-center text-sm text-destructive">
            Failed to load types
          </p>
        ) : null}
        <PickerLoadMore pages={types}>Load more types</PickerLoadMore>
      </PopoverContent>
    </Popover>
  );
}
