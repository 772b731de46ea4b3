import type { Member } from '@engram/shared';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { Alert } from '@/components/ui/alert';
import { useRemoveMember } from '../api/remove-member';
import { displayName, errorMessage } from '../members-rules';

interface RemoveMemberDialogProps {
  /** The member to remove; the dialog is open while one is set. */
  member: Member | null;
  accountName: string;
  onClose: () => void;
  onRemoved: (member: Member) => void;
}

export function RemoveMemberDialog({
  member,
  accountName,
  onClose,
  onRemoved,
}: RemoveMemberDialogProps) {
  const remove = useRemoveMember();
  return (
    <ConfirmDeleteDialog
      open={member !== null}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title="Remove member"
      question={
        <>
          Remove{' '}
          <span className="font-medium text-foreground">{member && displayName(member)}</span> (
          {member?.email}) from {accountName}? They lose access at once: their sessions, API keys
          and connected apps no longer reach this account. You can invite them again later.
        </>
      }
      pending={remove.isPending}
      action="Remove member"
      onConfirm={() => {
        if (!member) return;
        remove.mutate(member.userId, {
          onSuccess: () => {
            remove.reset();
            onRemoved(member);
          },
        });
      }}
    >
      {remove.isError ? (
        <Alert variant="error">{errorMessage(remove.error, 'Failed to remove the member')}</Alert>
      ) : null}
    </ConfirmDeleteDialog>
  );
}
