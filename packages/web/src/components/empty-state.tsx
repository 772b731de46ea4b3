import type { LucideIcon } from 'lucide-react';
import type { CSSProperties, ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import { cn } from '@/lib/cn';

interface EmptyStateProps {
  icon: LucideIcon;
  title: string;
  /** The line under the title. */
  description?: ReactNode;
  /** Buttons or links under the description, centred. */
  actions?: ReactNode;
  /** More under the title (examples, hints), when one line does not say it. */
  children?: ReactNode;
  /** 'none' when the empty state fills a frame of its own (the graph's canvas). */
  frame?: 'card' | 'none';
  className?: string;
  style?: CSSProperties;
}

/** What a screen shows where its list would be: an icon, what is missing, what to do next. */
export function EmptyState({
  icon: Icon,
  title,
  description,
  actions,
  children,
  frame = 'card',
  className,
  style,
}: EmptyStateProps) {
  const Frame = frame === 'card' ? Card : 'div';
  return (
    <Frame
      className={cn('flex flex-col items-center px-6 py-12 text-center', className)}
      style={style}
    >
      <div className="flex size-12 items-center justify-center rounded-full bg-primary-soft text-primary-soft-foreground">
        <Icon className="size-5" aria-hidden />
      </div>
      <h2 className="mt-4 text-base font-semibold">{title}</h2>
      {description ? (
        <p className="mt-1 max-w-sm text-sm text-muted-foreground">{description}</p>
      ) : null}
      {children}
      {actions ? <div className="mt-6 flex flex-wrap justify-center gap-2">{actions}</div> : null}
    </Frame>
  );
}
