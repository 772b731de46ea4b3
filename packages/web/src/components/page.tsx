import type { ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { PageHeader } from '@/components/page-header';

/** A page of the app: its tab's title, its header, and its content below. */
export function Page({
  title,
  tabTitle = title,
  description,
  actions,
  className,
  children,
}: {
  title: string;
  /** The browser tab's, when shorter than the header's. */
  tabTitle?: string;
  description?: string;
  actions?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={cn('grid gap-6', className)}>
      <title>{`${tabTitle} · Engram`}</title>
      <PageHeader title={title} description={description} actions={actions} />
      {children}
    </div>
  );
}
