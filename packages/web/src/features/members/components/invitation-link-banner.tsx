import type { CreatedInvitation } from '@engram/shared';
import { OneTimeSecret } from '@/components/one-time-secret';
import { formatDate } from '@/lib/format';
import { roleLabel } from '../members-rules';

/**
 * The one time an invitation's link is on screen: after inviting, until
 * dismissed. The server keeps only its token's hash, so nothing brings it
 * back (revoke and invite again for a new one).
 */
export function InvitationLinkBanner({
  invitation,
  onDismiss,
}: {
  invitation: CreatedInvitation;
  onDismiss: () => void;
}) {
  const email = <span className="font-medium">{invitation.email}</span>;
  const role = roleLabel(invitation.role).toLowerCase();
  return (
    <OneTimeSecret
      title={
        invitation.emailed ? `Invitation emailed to ${invitation.email}` : 'Invitation created'
      }
      description={
        invitation.emailed ? (
          <>
            {email} can join as {role === 'admin' ? 'an' : 'a'} {role} with the link in their email,
            or with this one, until {formatDate(invitation.expiresAt)}. It works once.
          </>
        ) : (
          <>
            This server sends no email: copy the link and send it to {email} yourself. It lets them
            join as {role === 'admin' ? 'an' : 'a'} {role}, once, until{' '}
            {formatDate(invitation.expiresAt)}.
          </>
        )
      }
      secret={invitation.url}
      testId="invitation-link"
      noun="link"
      onDismiss={onDismiss}
    />
  );
}
