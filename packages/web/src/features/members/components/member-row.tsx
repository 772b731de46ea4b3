import type { Member, Role } from '@engram/shared';
import { Crown, LogOut, MoreHorizontal, UserMinus } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { NativeSelect } from '@/components/ui/native-select';
import { formatDate, formatDateTime } from '@/lib/format';
import { cn } from '@/lib/cn';
import {
  assignableRoles,
  canRemove,
  canTransferTo,
  displayName,
  initials,
  lastActiveLabel,
  lastActiveSentence,
  roleLabel,
  type Actor,
} from '../members-rules';

/** The columns of a member row from `sm` up; below, each row stacks. */
export const MEMBER_COLUMNS = 'sm:grid-cols-[minmax(0,1fr)_8.5rem_7.5rem_7rem_5rem]';

interface MemberRowProps {
  member: Member;
  actor: Actor;
  /** Whether the actor may leave (not the account's last owner). */
  canLeave: boolean;
  /** A role change for this member is on its way. */
  updating: boolean;
  onChangeRole: (member: Member, role: Role) => void;
  onRemove: (member: Member) => void;
  onTransfer: (member: Member) => void;
  onLeave: () => void;
}

export function MemberRow({
  member,
  actor,
  canLeave,
  updating,
  onChangeRole,
  onRemove,
  onTransfer,
  onLeave,
}: MemberRowProps) {
  const name = displayName(member);
  const self = member.userId === actor.userId;
  const roles = assignableRoles(actor, member);
  const removable = canRemove(actor, member);
  const transferable = canTransferTo(actor, member);
  const active = lastActiveLabel(member.lastActiveAt);
  return (
    <li
      aria-label={name}
      className={cn(
        'flex flex-wrap items-center gap-x-3 gap-y-2 px-3 py-3 sm:grid sm:gap-x-4 sm:px-4 sm:py-2.5',
        MEMBER_COLUMNS,
      )}
    >
      <div className="flex min-w-0 basis-full items-center gap-3 sm:basis-auto">
        <span
          aria-hidden
          className="flex size-8 shrink-0 items-center justify-center rounded-full bg-primary-soft text-xs font-semibold text-primary-soft-foreground"
        >
          {initials(member)}
        </span>
        <div className="min-w-0">
          <p className="flex min-w-0 items-center gap-2 text-sm font-medium">
            <span className="truncate">{name}</span>
            {self ? <Badge variant="neutral">You</Badge> : null}
          </p>
          <p className="truncate text-xs text-muted-foreground">{member.email}</p>
          <p className="text-xs text-muted-foreground sm:hidden">
            Joined {formatDate(member.joinedAt)} · {lastActiveSentence(member.lastActiveAt)}
          </p>
        </div>
      </div>

      <div className="w-36 max-sm:ml-11 sm:w-auto">
        {roles.length > 0 ? (
          <NativeSelect
            aria-label={`Role of ${name}`}
            options={roles.map((role) => ({ value: role, label: roleLabel(role) }))}
            value={member.role}
            disabled={updating}
            onChange={(event) => onChangeRole(member, event.target.value as Role)}
          />
        ) : (
          <Badge variant={member.role === 'owner' ? 'accent' : 'neutral'} data-testid="member-role">
            {member.role === 'owner' ? <Crown aria-hidden /> : null}
            {roleLabel(member.role)}
          </Badge>
        )}
      </div>

      <p className="hidden text-sm text-muted-foreground tabular-nums sm:block">
        {formatDate(member.joinedAt)}
      </p>
      <p
        className="hidden text-sm text-muted-foreground sm:block"
        title={member.lastActiveAt ? formatDateTime(member.lastActiveAt) : undefined}
      >
        {active}
      </p>

      <div className="ml-auto flex justify-end sm:ml-0">
        {self ? (
          canLeave ? (
            <Button variant="ghost" size="sm" onClick={onLeave}>
              <LogOut aria-hidden />
              Leave
            </Button>
          ) : null
        ) : removable || transferable ? (
          <DropdownMenu>
            <DropdownMenuTrigger asChild>
              <Button
                variant="ghost"
                size="icon"
                aria-label={`Actions for ${name}`}
                title="Actions"
              >
                <MoreHorizontal aria-hidden />
              </Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent>
              {transferable ? (
                <DropdownMenuItem onSelect={() => onTransfer(member)}>
                  <Crown aria-hidden />
                  Transfer ownership
                </DropdownMenuItem>
              ) : null}
              {removable ? (
                <DropdownMenuItem
                  className="text-destructive [&_svg]:text-destructive"
                  onSelect={() => onRemove(member)}
                >
                  <UserMinus aria-hidden />
                  Remove from account
                </DropdownMenuItem>
              ) : null}
            </DropdownMenuContent>
          </DropdownMenu>
        ) : null}
      </div>
    </li>
  );
}
