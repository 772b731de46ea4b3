import type { ReactNode } from 'react';
import { PendingButton } from '@/components/pending-button';
import { Dialog, DialogActions, DialogContent, DialogHeading } from '@/components/ui/dialog';

export interface ConfirmDialogProps {
  open: boolean;
  onClose: () => void;
  title: string;
  /** What confirming does, under the title. */
  description: ReactNode;
  /** What else the person should know (consequences, the server's error). */
  children?: ReactNode;
  pending: boolean;
  onConfirm: () => void;
  /** The confirming button's label. */
  action: string;
  /** Before the label while not pending (the spinner takes its place then). */
  actionIcon?: ReactNode;
  /** A red confirming button, for what cannot be undone. */
  destructive?: boolean;
  /** Holds the confirming button back (e.g. until the name is typed to confirm). */
  confirmDisabled?: boolean;
  /** The button that changes nothing ('Keep Card'). */
  cancelLabel?: string;
}

/** Asks before an action with consequences; Cancel or Escape changes nothing. */
export function ConfirmDialog({
  open,
  onClose,
  title,
  description,
  children,
  pending,
  onConfirm,
  action,
  actionIcon = null,
  destructive = false,
  confirmDisabled = false,
  cancelLabel = 'Cancel',
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      <DialogContent>
        <DialogHeading
          title={title}
          description={description}
          descriptionClassName="wrap-anywhere"
        />
        {children}
        <DialogActions closeLabel={cancelLabel}>
          <PendingButton
            variant={destructive ? 'destructive' : 'primary'}
            pending={pending}
            disabled={confirmDisabled}
            icon={actionIcon}
            onClick={onConfirm}
          >
            {action}
          </PendingButton>
        </DialogActions>
      </DialogContent>
    </Dialog>
  );
}
