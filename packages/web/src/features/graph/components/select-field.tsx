import { useId, type ComponentProps } from 'react';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { cn } from '@/lib/cn';

interface SelectFieldProps extends Omit<ComponentProps<typeof NativeSelect>, 'className'> {
  label: string;
  className?: string;
}

/** A native select with its label above it. */
export function SelectField({ label, className, id, ...props }: SelectFieldProps) {
  const generatedId = useId();
  const selectId = id ?? generatedId;
  return (
    <div className={cn('grid gap-1.5', className)}>
      <Label htmlFor={selectId} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <NativeSelect id={selectId} {...props} />
    </div>
  );
}
