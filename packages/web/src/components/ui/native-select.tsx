import { ChevronDown } from 'lucide-react';
import type { ComponentProps } from 'react';
import { cn } from '@/lib/cn';

interface NativeSelectProps extends Omit<ComponentProps<'select'>, 'children'> {
  options: readonly { value: string; label: string }[];
  /** On the wrapper (width, placement); the select fills it. */
  className?: string;
}

/**
 * A native select with the input look: the platform's own picker on phones,
 * keyboard and screen readers for free. Label it (aria-label or a <Label>).
 */
export function NativeSelect({ options, className, ...props }: NativeSelectProps) {
  return (
    <div className={cn('relative', className)}>
      <select
        className="h-9 w-full cursor-pointer appearance-none rounded-lg border border-input bg-card pr-8 pl-3 text-sm text-foreground shadow-xs transition-colors outline-none focus-visible:border-ring focus-visible:ring-2 focus-visible:ring-ring/30 disabled:cursor-not-allowed disabled:opacity-50"
        {...props}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <ChevronDown
        className="pointer-events-none absolute top-1/2 right-2.5 size-4 -translate-y-1/2 text-muted-foreground"
        aria-hidden
      />
    </div>
  );
}
