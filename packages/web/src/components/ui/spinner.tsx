import { LoaderCircle } from 'lucide-react';
import { cn } from '@/lib/cn';

export function Spinner({ className }: { className?: string }) {
  return <LoaderCircle className={cn('size-4 animate-spin', className)} aria-hidden />;
}

/** Where a list or card will be while it loads: a centered spinner, named for screen readers. */
export function LoadingBlock({ label, className }: { label: string; className?: string }) {
  return (
    <div className={cn('flex justify-center py-6', className)} aria-busy>
      <Spinner className="text-muted-foreground" />
      <span className="sr-only">{label}</span>
    </div>
  );
}
