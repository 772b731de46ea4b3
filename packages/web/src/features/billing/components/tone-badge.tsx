import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { cn } from '@/lib/cn';

const TONES = {
  green: 'bg-success-soft text-success-soft-foreground',
  orange: 'bg-orange-100 text-orange-700 dark:bg-orange-950 dark:text-orange-300',
};

/** A status: green when it is good, orange when it wants attention (docs/product.md, The signed-in app). */
export function ToneBadge({ good, children }: { good: boolean; children: ReactNode }) {
  const tone = good ? 'green' : 'orange';
  return (
    <Badge data-tone={tone} className={cn('border-transparent', TONES[tone])}>
      {children}
    </Badge>
  );
}
