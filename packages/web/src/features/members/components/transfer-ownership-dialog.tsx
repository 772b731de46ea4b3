import type { Member } from '@engram/shared';
import { Crown } from 'lucide-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Alert } from '@/components/ui/alert';
import { useTransferOwnership } from '../api/transfer-ownership';
import { displayName, errorMessage } from '../members-rules';

interface TransferOwnershipDialogProps {
  /** The member to hand the account to; the dialog is open while one is set. */
  member: Member | null;
  accountName: string;
  onClose: () => void;
  onTransferred: (member: Member) => void;
}

export function TransferOwnershipDialog({
  member,
  accountName,
  onClose,
  onTransferred,
}: TransferOwnershipDialogProps) {
  const transfer = useTransferOwnership();
  return (
    <ConfirmDialog
      open={member !== null}
      onClose={() => {
        transfer.reset();
        onClose();
      }}
      title="Transfer ownership"
      description={
        <>
          Make <span className="font-medium text-foreground">{member && displayName(member)}</span>{' '}
          the owner of {accountName}? You become an admin: you keep members, keys and webhooks, but
          billing and ownership become theirs. Only they can give it back.
        </>
      }
      pending={transfer.isPending}
      action="Transfer ownership"
      actionIcon={<Crown aria-hidden />}
      onConfirm={() => {
        if (!member) return;
        transfer.mutate(member.userId, {
          onSuccess: () => {
            transfer.reset();
            onTransferred(member);
          },
        });
      }}
    >
      {transfer.isError ? (
        <Alert variant="error">
          {errorMessage(transfer.error, 'Failed to transfer ownership')}
        </Alert>
      ) : null}
    </ConfirmDialog>
  );
}
