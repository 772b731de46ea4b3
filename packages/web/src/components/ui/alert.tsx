import { cva, type VariantProps } from 'class-variance-authority';
import { CircleAlert, CircleCheck, Info } from 'lucide-react';
import type { ComponentProps } from 'react';
import { cn } from '@/lib/cn';

const alertVariants = cva('flex items-start gap-2 rounded-lg border px-3 py-2.5 text-sm', {
  variants: {
    variant: {
      error: 'border-destructive/30 bg-destructive-soft text-destructive-soft-foreground',
      success: 'border-success/30 bg-success-soft text-success-soft-foreground',
      info: 'border-primary/25 bg-primary-soft text-primary-soft-foreground',
    },
  },
  defaultVariants: { variant: 'info' },
});

const ICONS = { error: CircleAlert, success: CircleCheck, info: Info } as const;

export interface AlertProps extends ComponentProps<'div'>, VariantProps<typeof alertVariants> {}

/** An inline notice. Errors are announced at once (role=alert); others politely. */
export function Alert({ className, variant = 'info', children, ...props }: AlertProps) {
  const Icon = ICONS[variant ?? 'info'];
  return (
    <div
      role={variant === 'error' ? 'alert' : 'status'}
      className={cn(alertVariants({ variant }), className)}
      {...props}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}
