import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

/** A dashboard card's list, or a note with the card's icon while it has nothing to list. */
export function CardList<T>({
  items,
  label,
  icon: Icon,
  empty,
  children,
}: {
  items: T[];
  label: string;
  icon: LucideIcon;
  empty: string;
  /** One item's `<li>`, with its key. */
  children: (item: T) => ReactNode;
}) {
  return (
    <div className="flex-1 px-6 pb-5">
      {items.length === 0 ? (
        <div className="flex h-full min-h-32 flex-col items-center justify-center gap-2 text-center">
          <span className="flex size-9 items-center justify-center rounded-full bg-muted text-muted-foreground">
            <Icon className="size-4" aria-hidden />
          </span>
          <p className="text-sm text-muted-foreground">{empty}</p>
        </div>
      ) : (
        <ul className="grid grid-cols-1 gap-1" aria-label={label}>
          {items.map(children)}
        </ul>
      )}
    </div>
  );
}
