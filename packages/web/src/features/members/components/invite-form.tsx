import type { CreatedInvitation } from '@engram/shared';
import { UserPlus } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { Spinner } from '@/components/ui/spinner';
import { useCreateInvitation } from '../api/create-invitation';
import {
  errorMessage,
  fieldError,
  INVITABLE_ROLES,
  roleLabel,
  ROLE_SUMMARIES,
  type InvitableRole,
} from '../members-rules';

const ROLE_OPTIONS = INVITABLE_ROLES.map((role) => ({ value: role, label: roleLabel(role) }));

/** Email and role; Invite makes the link (shown once by the caller). */
export function InviteForm({ onInvited }: { onInvited: (invitation: CreatedInvitation) => void }) {
  const emailId = useId();
  const roleId = useId();
  const messageId = useId();
  const create = useCreateInvitation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InvitableRole>('member');

  const emailError = fieldError(create.error, 'email');
  const otherError =
    create.isError && !emailError ? errorMessage(create.error, 'Failed to invite') : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      { email: email.trim(), role },
      {
        onSuccess: (invitation) => {
          setEmail('');
          create.reset();
          onInvited(invitation);
        },
      },
    );
  }

  return (
    <form
      noValidate
      aria-label="Invite a member"
      onSubmit={submit}
      className="grid gap-2 rounded-lg border border-border bg-surface p-3"
    >
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-[minmax(0,1fr)_10rem_auto] sm:items-end">
        <div className="grid gap-1.5">
          <Label htmlFor={emailId} className="text-xs text-muted-foreground">
            Email address
          </Label>
          <Input
            id={emailId}
            autoComplete="off"
            inputMode="email"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="colleague@example.com"
            value={email}
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? messageId : undefined}
            onChange={(event) => {
              setEmail(event.target.value);
              if (create.isError) create.reset();
            }}
          />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={roleId} className="text-xs text-muted-foreground">
            Role
          </Label>
          <NativeSelect
            id={roleId}
            options={ROLE_OPTIONS}
            value={role}
            onChange={(event) => setRole(event.target.value as InvitableRole)}
          />
        </div>
        <Button type="submit" disabled={email.trim() === '' || create.isPending}>
          {create.isPending ? <Spinner /> : <UserPlus aria-hidden />}
          Invite
        </Button>
      </div>
      {emailError ? (
        <p id={messageId} className="text-xs text-destructive">
          {emailError}
        </p>
      ) : (
        <p className="text-xs text-muted-foreground">
          {roleLabel(role)}: {ROLE_SUMMARIES[role]}.
        </p>
      )}
      {otherError ? <Alert variant="error">{otherError}</Alert> : null}
    </form>
  );
}
