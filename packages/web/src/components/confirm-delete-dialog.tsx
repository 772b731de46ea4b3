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

interface ConfirmDeleteDialogProps {
  open: boolean;
  onClose: () => void;
  title: string;
  /** The question asked before a deletion. */
  question: ReactNode;
  /** What else the person should know (consequences, the item itself). */
  children?: ReactNode;
  pending: boolean;
  onConfirm: () => void;
  /** The destructive button's label. */
  action?: string;
  /** Holds the destructive button back (e.g. until the name is typed to confirm). */
  confirmDisabled?: boolean;
}

/** A deletion asks first; Cancel or Escape keeps everything (docs/product.md, States). */
export function ConfirmDeleteDialog({
  open,
  onClose,
  title,
  question,
  children,
  pending,
  onConfirm,
  action = 'Delete',
  confirmDisabled = false,
}: ConfirmDeleteDialogProps) {
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription className="wrap-anywhere">{question}</DialogDescription>
        </DialogHeader>
        {children}
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button variant="destructive" disabled={pending || confirmDisabled} onClick={onConfirm}>
            {pending ? <Spinner /> : null}
            {action}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
