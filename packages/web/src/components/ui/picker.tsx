import { Check, Search } from 'lucide-react';
import type { ComponentProps, KeyboardEvent, ReactNode } from 'react';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';

// The parts the searchable pickers share (the type picker, the relation
// form's entity picker): a closed button, a search box at the top of the
// open list that the arrow keys and Enter act on, and options with a check.
// How the keys move through the list is `usePickerList` (picker-list.ts).

/** The closed picker: looks like the other inputs of a form. */
export const pickerTriggerClass = cn(
  'flex h-9 w-full min-w-0 cursor-pointer items-center justify-between gap-2 rounded-lg border border-input bg-card px-3 text-left text-sm shadow-xs transition-colors outline-none',
  'focus-visible:border-ring focus-visible:ring-2 focus-visible:ring-ring/30',
  'disabled:cursor-not-allowed disabled:opacity-60',
  'aria-invalid:border-destructive aria-invalid:ring-destructive/20',
);

interface PickerSearchProps extends Omit<ComponentProps<'input'>, 'onKeyDown'> {
  /** A spinner in place of the magnifier while the list answers an earlier text. */
  searching: boolean;
  /** The id of the listbox the box drives. */
  listId: string;
  /** Arrow keys move through the options; Enter picks the highlighted one. */
  onMove: (step: 1 | -1) => void;
  onEnter: () => void;
}

/** The search box at the top of an open picker; Radix focuses it on opening (it is first). */
export function PickerSearch({ searching, listId, onMove, onEnter, ...props }: PickerSearchProps) {
  function keyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      onMove(1);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      onMove(-1);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      onEnter();
    }
  }

  return (
    <div className="flex items-center gap-2 border-b border-border px-3">
      {searching ? (
        <Spinner className="text-muted-foreground" />
      ) : (
        <Search className="size-4 shrink-0 text-muted-foreground" aria-hidden />
      )}
      <input
        role="combobox"
        aria-expanded
        aria-controls={listId}
        aria-autocomplete="list"
        className="h-10 w-full min-w-0 bg-transparent text-sm outline-none placeholder:text-muted-foreground"
        onKeyDown={keyDown}
        {...props}
      />
    </div>
  );
}

interface PickerOptionProps extends ComponentProps<'li'> {
  selected: boolean;
  /** Highlighted by the arrow keys or the pointer. */
  active: boolean;
  children: ReactNode;
}

/** One option of an open picker: a check when chosen, highlighted when active. */
export function PickerOption({
  selected,
  active,
  className,
  children,
  ...props
}: PickerOptionProps) {
  return (
    <li
      role="option"
      aria-selected={selected}
      className={cn(
        'flex cursor-pointer items-center gap-2 rounded-md px-2 py-1.5 text-sm select-none',
        active && 'bg-muted',
        className,
      )}
      {...props}
    >
      <Check className={cn('size-4 shrink-0 text-primary', !selected && 'invisible')} aria-hidden />
      {children}
    </li>
  );
}
