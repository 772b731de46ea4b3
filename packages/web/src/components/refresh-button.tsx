import { RefreshCw } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';

interface RefreshButtonProps {
  onClick: () => void;
  /** The icon turns while a reload runs. */
  spinning: boolean;
  disabled?: boolean;
  className?: string;
}

/** The 'Refresh' action every data screen offers (docs/product.md, The signed-in app). */
export function RefreshButton({ onClick, spinning, disabled, className }: RefreshButtonProps) {
  return (
    <Button variant="outline" onClick={onClick} disabled={disabled} className={className}>
      <RefreshCw aria-hidden className={cn(spinning && 'animate-spin')} />
      Refresh
    </Button>
  );
}
