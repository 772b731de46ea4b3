import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';

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
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription className="wrap-anywhere">{description}</DialogDescription>
        </DialogHeader>
        {children}
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button
            variant={destructive ? 'destructive' : 'primary'}
            disabled={pending || confirmDisabled}
            onClick={onConfirm}
          >
            {pending ? <Spinner /> : actionIcon}
            {action}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
