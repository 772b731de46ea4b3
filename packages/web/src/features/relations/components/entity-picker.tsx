import { ChevronsUpDown } from 'lucide-react';
import { useState, type Ref } from 'react';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { PickerOption, PickerSearch, pickerTriggerClass } from '@/components/ui/picker';
import { usePickerList } from '@/components/ui/picker-list';
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useEntitySearch, type PickedEntity } from '../api/search-entities';

/** Typing pauses this long before the server is asked. */
export const PICKER_DEBOUNCE_MS = 250;

interface EntityPickerProps {
  id?: string;
  ref?: Ref<HTMLButtonElement>;
  value: PickedEntity | null;
  onChange: (entity: PickedEntity) => void;
  /** The entity picked on the other side: shown, but cannot be picked (docs/product.md, Forms). */
  disabledEntityId?: string | null | undefined;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string | undefined;
  /** The accessible name of the search box inside the list, e.g. 'Search source entities'. */
  searchLabel: string;
}

/**
 * Picks one entity of the account by searching the server as the person
 * types (debounced), so any entity can be found whatever the account's size.
 * Arrow keys move through the results, Enter picks, Escape closes.
 */
export function EntityPicker({
  id,
  ref,
  value,
  onChange,
  disabledEntityId,
  disabled = false,
  invalid = false,
  describedBy,
  searchLabel,
}: EntityPickerProps) {
  const [open, setOpen] = useState(false);
  return (
    <Popover open={open} onOpenChange={setOpen} modal>
      <PopoverTrigger asChild disabled={disabled}>
        <button
          ref={ref}
          id={id}
          type="button"
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          className={pickerTriggerClass}
        >
          {value ? (
            <span className="flex min-w-0 items-center gap-2">
              <span className="truncate">{value.name}</span>
              <EntityTypeBadge type={value.type} className="hidden sm:inline-flex" />
            </span>
          ) : (
            <span className="truncate text-muted-foreground">Select an entity</span>
          )}
          <ChevronsUpDown className="size-4 shrink-0 text-muted-foreground" aria-hidden />
        </button>
      </PopoverTrigger>
      <PopoverContent className="w-[var(--radix-popover-trigger-width)] min-w-64 p-0">
        {/* Mounted while open only: every opening starts with an empty search. */}
        <EntitySearch
          searchLabel={searchLabel}
          selectedId={value?.id}
          disabledEntityId={disabledEntityId}
          onPick={(entity) => {
            onChange(entity);
            setOpen(false);
          }}
        />
      </PopoverContent>
    </Popover>
  );
}

function EntitySearch({
  searchLabel,
  selectedId,
  disabledEntityId,
  onPick,
}: {
  searchLabel: string;
  selectedId: string | undefined;
  disabledEntityId: string | null | undefined;
  onPick: (entity: PickedEntity) => void;
}) {
  const [query, setQuery] = useState('');
  const settled = useDebouncedValue(query, PICKER_DEBOUNCE_MS);
  const results = useEntitySearch(settled, true);

  const options = results.data ?? [];
  const stale = settled !== query || results.isPlaceholderData;
  const searching = results.isFetching || stale;
  const list = usePickerList({
    options,
    blocked: (entity) => entity.id === disabledEntityId,
    stale,
    onPick,
  });

  return (
    <>
      <PickerSearch
        {...list.search}
        searching={searching}
        aria-label={searchLabel}
        placeholder="Search entities..."
        value={query}
        onChange={list.typed(setQuery)}
      />
      <ul
        {...list.list}
        aria-label="Entities"
        className="max-h-64 overflow-y-auto p-1 empty:hidden"
      >
        {options.map((entity, index) => {
          const blocked = entity.id === disabledEntityId;
          return (
            <PickerOption
              key={entity.id}
              {...list.option(index)}
              selected={entity.id === selectedId}
              aria-disabled={blocked || undefined}
              className={cn(blocked && 'cursor-not-allowed opacity-50')}
            >
              <span className="min-w-0 flex-1 truncate">{entity.name}</span>
              <EntityTypeBadge type={entity.type} />
            </PickerOption>
          );
        })}
      </ul>
      {results.data && options.length === 0 && !searching ? (
        <p className="px-2 pb-6 pt-5 text-center text-sm text-muted-foreground">
          No entities found
        </p>
      ) : null}
      {!results.data && results.isError ? (
        <p className="px-2 pb-6 pt-5 text-center text-sm text-destructive">
          Failed to load entities
        </p>
      ) : null}
      {!results.data && !results.isError ? (
        <p role="status" className="flex justify-center px-2 pb-6 pt-5 text-muted-foreground">
          <Spinner />
          <span className="sr-only">Loading entities</span>
        </p>
      ) : null}
    </>
  );
}
