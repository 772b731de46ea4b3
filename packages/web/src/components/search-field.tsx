import { Search } from 'lucide-react';
import type { ComponentProps, ReactNode } from 'react';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';

interface SearchFieldProps extends ComponentProps<typeof Input> {
  /** A spinner in place of the magnifier while an answer is awaited. */
  busy?: boolean;
  /** Beside the box, inside its frame (a hint the box is described by). */
  children?: ReactNode;
}

/** A search box with a magnifier (or a spinner while searching) at its start. */
export function SearchField({ busy = false, className, children, ...props }: SearchFieldProps) {
  return (
    <div className="relative">
      {busy ? (
        <Spinner className="pointer-events-none absolute top-1/2 left-3 -translate-y-1/2 text-muted-foreground" />
      ) : (
        <Search
          className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
          aria-hidden
        />
      )}
      <Input type="search" className={cn('pl-9', className)} {...props} />
      {children}
    </div>
  );
}
