import type { ReactNode } from 'react';
import { ConfirmDialog, type ConfirmDialogProps } from '@/components/confirm-dialog';

interface ConfirmDeleteDialogProps extends Omit<
  ConfirmDialogProps,
  'description' | 'action' | 'actionIcon' | 'destructive'
> {
  /** The question asked before a deletion. */
  question: ReactNode;
  /** The destructive button's label. */
  action?: string;
}

/** A deletion asks first; Cancel or Escape keeps everything (docs/product.md, States). */
export function ConfirmDeleteDialog({
  question,
  action = 'Delete',
  ...props
}: ConfirmDeleteDialogProps) {
  return <ConfirmDialog {...props} description={question} action={action} destructive />;
}
