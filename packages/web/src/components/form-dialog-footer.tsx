import type { ReactNode } from 'react';
import { DialogActions } from '@/components/ui/dialog';
import { PendingButton } from './pending-button';

/** A form dialog's footer: Cancel closes it, the submit button shows the request under way. */
export function FormDialogFooter({
  submitLabel,
  pending,
  disabled = false,
}: {
  submitLabel: ReactNode;
  pending: boolean;
  /** Holds the submit button back (e.g. while a required field is blank). */
  disabled?: boolean;
}) {
  return (
    <DialogActions>
      <PendingButton type="submit" pending={pending} disabled={disabled}>
        {submitLabel}
      </PendingButton>
    </DialogActions>
  );
}
