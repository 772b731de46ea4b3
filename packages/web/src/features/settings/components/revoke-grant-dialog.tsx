import type { OAuthGrant } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { ApiError } from '@/lib/api-client';
import { useRevokeGrant } from '../api/revoke-grant';

interface RevokeGrantDialogProps {
  /** The app to revoke; the dialog is open while one is set. */
  grant: OAuthGrant | null;
  onClose: () => void;
}

/** Revoking asks first; Cancel or Escape keeps the app connected (docs/product.md, States). */
export function RevokeGrantDialog({ grant, onClose }: RevokeGrantDialogProps) {
  const revoke = useRevokeGrant();

  return (
    <ConfirmDeleteDialog
      open={grant !== null}
      onClose={() => {
        if (!revoke.isPending) onClose();
      }}
      title="Revoke access"
      question={
        <>
          Revoke access for{' '}
          <span className="font-medium text-foreground">{grant?.client.name}</span>? It will be
          signed out of Engram at once.
        </>
      }
      action="Revoke"
      pending={revoke.isPending}
      onConfirm={() => {
        if (!grant) return;
        revoke.mutate(grant.id, {
          onSuccess: () => {
            toast.success('Access revoked');
            onClose();
          },
          onError: (error) => {
            toast.error(
              error instanceof ApiError && error.body ? error.message : 'Failed to revoke access',
            );
          },
        });
      }}
    />
  );
}
