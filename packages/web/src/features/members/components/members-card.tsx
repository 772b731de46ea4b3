import type { CreatedInvitation, Member, Role } from '@engram/shared';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { LoadingBlock } from '@/components/ui/spinner';
import { useAccount } from '@/lib/account';
import { cn } from '@/lib/cn';
import { useSession } from '@/lib/session';
import { useMembersPlanName } from '../api/get-members-plan';
import { useMembers } from '../api/list-members';
import { useUpdateMemberRole } from '../api/update-member-role';
import {
  canLeave,
  canManageMembers,
  displayName,
  errorMessage,
  isFull,
  isSingleSeat,
  roleLabel,
  ROLE_SUMMARIES,
  seatsLabel,
  type Actor,
} from '../members-rules';
import { InvitationLinkBanner } from './invitation-link-banner';
import { InvitationsList } from './invitations-list';
import { InviteForm } from './invite-form';
import { LeaveAccountDialog } from './leave-account-dialog';
import { MEMBER_COLUMNS, MemberRow } from './member-row';
import { RemoveMemberDialog } from './remove-member-dialog';
import { TransferOwnershipDialog } from './transfer-ownership-dialog';

const noteLink = 'font-medium text-primary underline-offset-4 hover:underline';

/**
 * The people of the account acted in (Settings → Members): their roles, who
 * joined when and was last active, pending invitations, and, for owners and
 * admins, inviting, changing roles and removing, within the plan's number of
 * members. Members and viewers see it read-only; anyone may leave.
 */
export function MembersCard() {
  const titleId = useId();
  const { user } = useSession();
  const account = useAccount();
  const members = useMembers();
  const updateRole = useUpdateMemberRole();
  const [invited, setInvited] = useState<CreatedInvitation | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [transferring, setTransferring] = useState<Member | null>(null);
  const [leaving, setLeaving] = useState(false);

  const data = members.data;
  const self = data?.members.find((member) => member.userId === user?.id);
  // The list says the role best; before it loads, the session's word for it.
  const actor: Actor = { userId: user?.id ?? '', role: self?.role ?? account.role ?? 'viewer' };
  const manager = canManageMembers(actor.role);
  const singleSeat = data !== undefined && isSingleSeat(data.maxMembers);
  const full = data !== undefined && isFull(data);
  const planName = useMembersPlanName(manager && (singleSeat || full)).data;
  const accountName = account.current?.name ?? 'this account';

  function changeRole(member: Member, role: Role) {
    if (role === member.role) return;
    updateRole.mutate(
      { userId: member.userId, role },
      {
        onSuccess: (updated) =>
          toast.success(`${displayName(updated)} is now ${roleWithArticle(updated.role)}`),
        onError: (error) => toast.error(errorMessage(error, 'Failed to change the role')),
      },
    );
  }

  return (
    <>
      {invited ? (
        <InvitationLinkBanner invitation={invited} onDismiss={() => setInvited(null)} />
      ) : null}
      <Card role="region" aria-labelledby={titleId}>
        <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3 max-sm:p-4">
          <div className="min-w-0 flex-1 basis-64">
            <CardTitle id={titleId}>Members</CardTitle>
            <CardDescription>
              The people who share {accountName}&apos;s memory, each with one role.
            </CardDescription>
          </div>
          {data ? (
            <span data-testid="member-limit" className="text-xs text-muted-foreground tabular-nums">
              {seatsLabel(data)}
            </span>
          ) : null}
        </CardHeader>
        <CardContent className="grid grid-cols-1 gap-4 max-sm:px-4 max-sm:pb-4">
          {members.isPending ? (
            <LoadingBlock label="Loading members…" />
          ) : members.isError || !data ? (
            <LoadErrorAlert onRetry={() => void members.refetch()}>
              {errorMessage(members.error, 'Failed to load members')}
            </LoadErrorAlert>
          ) : (
            <>
              {manager && singleSeat ? (
                <p
                  data-testid="members-plan-note"
                  className="rounded-lg border border-dashed border-border px-4 py-4 text-center text-sm text-muted-foreground"
                >
                  Your {planName ?? 'current'} plan is for one person.{' '}
                  <Link to="/pricing" className={noteLink}>
                    Compare plans
                  </Link>{' '}
                  to invite your team.
                </p>
              ) : manager && full ? (
                <p data-testid="members-plan-note" className="text-xs text-muted-foreground">
                  Every seat your {planName ?? ''} plan allows is taken (pending invitations count
                  too). Remove someone, revoke an invitation or{' '}
                  <Link to="/pricing" className={noteLink}>
                    upgrade your plan
                  </Link>{' '}
                  to invite more.
                </p>
              ) : manager ? (
                <InviteForm onInvited={setInvited} />
              ) : (
                <p className="text-xs text-muted-foreground">
                  You are {roleWithArticle(actor.role)} here: owners and admins invite people and
                  change roles.
                </p>
              )}

              <div className="overflow-hidden rounded-lg border border-border">
                <div
                  aria-hidden
                  className={cn(
                    'hidden border-b border-border bg-surface px-4 py-2 text-xs font-medium text-muted-foreground sm:grid sm:gap-x-4',
                    MEMBER_COLUMNS,
                  )}
                >
                  <span>Member</span>
                  <span>Role</span>
                  <span>Joined</span>
                  <span>Last active</span>
                  <span />
                </div>
                <ul aria-label="Members" className="divide-y divide-border">
                  {data.members.map((member) => (
                    <MemberRow
                      key={member.userId}
                      member={member}
                      actor={actor}
                      canLeave={canLeave(actor, data.members)}
                      updating={
                        updateRole.isPending && updateRole.variables?.userId === member.userId
                      }
                      onChangeRole={changeRole}
                      onRemove={setRemoving}
                      onTransfer={setTransferring}
                      onLeave={() => setLeaving(true)}
                    />
                  ))}
                </ul>
              </div>

              {data.invitations.length > 0 ? (
                <InvitationsList
                  invitations={data.invitations}
                  canRevoke={manager}
                  onRevoked={(revoked) =>
                    setInvited((shown) => (shown?.id === revoked.id ? null : shown))
                  }
                />
              ) : null}

              <RolesLegend />
            </>
          )}
        </CardContent>
      </Card>
      <RemoveMemberDialog
        member={removing}
        accountName={accountName}
        onClose={() => setRemoving(null)}
        onRemoved={(removed) => {
          setRemoving(null);
          toast.success(`${displayName(removed)} was removed`);
        }}
      />
      <TransferOwnershipDialog
        member={transferring}
        accountName={accountName}
        onClose={() => setTransferring(null)}
        onTransferred={(owner) => {
          setTransferring(null);
          toast.success(`${displayName(owner)} now owns ${accountName}`, {
            description: 'You are an admin now.',
          });
        }}
      />
      <LeaveAccountDialog
        open={leaving}
        userId={actor.userId}
        accountName={accountName}
        onClose={() => setLeaving(false)}
        onLeft={() => {
          setLeaving(false);
          toast.success(`You left ${accountName}`);
          // Back to the person's own account.
          account.switchTo(null, '/dashboard');
        }}
      />
    </>
  );
}

function roleWithArticle(role: Role): string {
  const label = roleLabel(role).toLowerCase();
  return `${label === 'admin' || label === 'owner' ? 'an' : 'a'} ${label}`;
}

/** What each role may do, in four short lines under the list. */
function RolesLegend() {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-1 border-t border-border pt-3 text-xs text-muted-foreground sm:grid-cols-2">
      {(['owner', 'admin', 'member', 'viewer'] as const).map((role) => (
        <div key={role} className="flex gap-1.5">
          <dt className="font-medium text-foreground">{roleLabel(role)}</dt>
          <dd>{ROLE_SUMMARIES[role]}</dd>
        </div>
      ))}
    </dl>
  );
}
