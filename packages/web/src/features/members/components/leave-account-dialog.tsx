import { LogOut } from 'lucide-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Alert } from '@/components/ui/alert';
import { useLeaveAccount } from '../api/remove-member';
import { errorMessage } from '../members-rules';

interface LeaveAccountDialogProps {
  open: boolean;
  /** The person leaving (themselves). */
  userId: string;
  accountName: string;
  onClose: () => void;
  onLeft: () => void;
}

export function LeaveAccountDialog({
  open,
  userId,
  accountName,
  onClose,
  onLeft,
}: LeaveAccountDialogProps) {
  const leave = useLeaveAccount();
  return (
    <ConfirmDialog
      open={open}
      onClose={() => {
        leave.reset();
        onClose();
      }}
      title="Leave account"
      description={
        <>
          Leave <span className="font-medium text-foreground">{accountName}</span>? You lose access
          to its memory, keys and webhooks at once; an owner or admin can invite you again.
        </>
      }
      pending={leave.isPending}
      action="Leave account"
      actionIcon={<LogOut aria-hidden />}
      destructive
      onConfirm={() =>
        leave.mutate(userId, {
          onSuccess: () => {
            leave.reset();
            onLeft();
          },
        })
      }
    >
      {leave.isError ? (
        <Alert variant="error">{errorMessage(leave.error, 'Failed to leave the account')}</Alert>
      ) : null}
    </ConfirmDialog>
  );
}
