import { ChevronDown } from 'lucide-react';
import { useId, type ComponentProps } from 'react';
import { Label } from '@/components/ui/label';
import { cn } from '@/lib/cn';

interface SelectFieldProps extends Omit<ComponentProps<'select'>, 'children'> {
  label: string;
  options: readonly { value: string; label: string }[];
}

/** A labelled native select: the platform's own picker on phones, the input look elsewhere. */
export function SelectField({ label, options, className, id, ...props }: SelectFieldProps) {
  const generatedId = useId();
  const selectId = id ?? generatedId;
  return (
    <div className={cn('grid gap-1.5', className)}>
      <Label htmlFor={selectId} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <div className="relative">
        <select
          id={selectId}
          className="h-9 w-full cursor-pointer appearance-none rounded-lg border border-input bg-card pr-8 pl-3 text-sm text-foreground shadow-xs transition-colors outline-none focus-visible:border-ring focus-visible:ring-2 focus-visible:ring-ring/30"
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
    </div>
  );
}
