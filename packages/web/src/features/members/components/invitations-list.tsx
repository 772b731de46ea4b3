import type { Invitation } from '@engram/shared';
import { Mail } from 'lucide-react';
import { useId } from 'react';
import { toast } from 'sonner';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime } from '@/lib/format';
import { useRevokeInvitation } from '../api/revoke-invitation';
import { errorMessage, expiryLabel, roleLabel } from '../members-rules';

/** Invitations not yet accepted, each with its role and expiry; owners and admins may revoke. */
export function InvitationsList({
  invitations,
  canRevoke,
  onRevoked,
}: {
  invitations: readonly Invitation[];
  canRevoke: boolean;
  /** After a revoke: the link shown for it, if any, is no use any more. */
  onRevoked: (invitation: Invitation) => void;
}) {
  const revoke = useRevokeInvitation();
  const titleId = useId();
  return (
    <section aria-labelledby={titleId} className="grid min-w-0 grid-cols-1 gap-2">
      <h4 id={titleId} className="text-sm font-medium">
        Pending invitations
      </h4>
      <ul
        aria-labelledby={titleId}
        className="divide-y divide-border rounded-lg border border-border"
      >
        {invitations.map((invitation) => {
          const busy = revoke.isPending && revoke.variables === invitation.id;
          return (
            <li
              key={invitation.id}
              aria-label={invitation.email}
              className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2.5 sm:px-4"
            >
              <Mail className="hidden size-4 shrink-0 text-muted-foreground sm:block" aria-hidden />
              <div className="min-w-0 flex-1 basis-48">
                <p className="truncate text-sm font-medium">{invitation.email}</p>
                <p
                  className="text-xs text-muted-foreground"
                  title={formatDateTime(invitation.expiresAt)}
                >
                  {expiryLabel(invitation.expiresAt)}
                </p>
              </div>
              <Badge variant="outline">{roleLabel(invitation.role)}</Badge>
              {canRevoke ? (
                <Button
                  variant="ghost"
                  size="sm"
                  className="ml-auto sm:ml-0"
                  aria-label={`Revoke the invitation for ${invitation.email}`}
                  disabled={busy}
                  onClick={() =>
                    revoke.mutate(invitation.id, {
                      onSuccess: () => {
                        toast.success('Invitation revoked');
                        onRevoked(invitation);
                      },
                      onError: (error) =>
                        toast.error(errorMessage(error, 'Failed to revoke the invitation')),
                    })
                  }
                >
                  {busy ? <Spinner /> : null}
                  Revoke
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
