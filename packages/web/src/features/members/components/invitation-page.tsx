import type { InvitationPreview } from '@engram/shared';
import { CircleAlert, LogIn, UserPlus, Users } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { CenteredLayout } from '@/components/centered-layout';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import {
  clearPendingInvitation,
  readPendingInvitation,
  storePendingInvitation,
  tokenFromHash,
  useAccount,
} from '@/lib/account';
import { ApiError } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useSession } from '@/lib/session';
import { useAcceptInvitation } from '../api/accept-invitation';
import { useInvitationPreview } from '../api/preview-invitation';
import { errorMessage, roleLabel, ROLE_SUMMARIES } from '../members-rules';

export const INVALID_INVITATION =
  'This invitation is no longer valid: it has expired, was already used or was revoked. Ask the person who invited you for a new link.';

/**
 * /invitations/accept#token=… (issue 40): what an invitation link offers —
 * the account, the role, who invited and until when — and, signed in, Accept;
 * signed out, sign in or sign up and come back here (the token is kept for
 * the tab meanwhile). A centred card outside the app's navigation.
 */
export function InvitationPage() {
  const { hash } = useLocation();
  const { status } = useSession();
  // The fragment first (another link pasted in this tab changes only it); else
  // the link opened before signing in, kept for this tab.
  const [kept] = useState(readPendingInvitation);
  const token = tokenFromHash(hash) ?? kept;
  useEffect(() => {
    if (token) storePendingInvitation(token);
  }, [token]);

  return (
    <CenteredLayout home={status === 'authenticated' ? '/dashboard' : '/'}>
      <title>Invitation · Engram</title>
      {token === null ? <InvalidInvitation /> : <Invitation key={token} token={token} />}
    </CenteredLayout>
  );
}

function Invitation({ token }: { token: string }) {
  const preview = useInvitationPreview(token);
  const gone = preview.error instanceof ApiError && preview.error.status === 404;
  useEffect(() => {
    if (gone) clearPendingInvitation();
  }, [gone]);

  if (preview.isPending) {
    return (
      <Card className="flex justify-center p-10" aria-busy>
        <Spinner className="size-5 text-muted-foreground" />
        <span className="sr-only">Loading the invitation…</span>
      </Card>
    );
  }
  if (preview.isError) {
    if (gone) return <InvalidInvitation />;
    return (
      <LoadErrorAlert onRetry={() => void preview.refetch()}>
        {errorMessage(preview.error, 'Failed to load the invitation')}
      </LoadErrorAlert>
    );
  }
  return <InvitationCard token={token} invitation={preview.data} />;
}

function InvitationCard({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const { status, user } = useSession();
  const role = roleLabel(invitation.role).toLowerCase();
  const article = role === 'admin' || role === 'owner' ? 'an' : 'a';
  return (
    <Card className="grid gap-5 p-6">
      <div className="grid justify-items-center gap-3 text-center">
        <span className="flex size-10 items-center justify-center rounded-full bg-primary-soft text-primary-soft-foreground">
          <Users className="size-5" aria-hidden />
        </span>
        <div className="grid gap-1">
          <h1 className="text-xl font-semibold tracking-tight text-balance">
            Join {invitation.accountName}
          </h1>
          <p className="text-sm text-muted-foreground text-pretty">
            {invitation.invitedBy} invited{' '}
            <span className="font-medium text-foreground">{invitation.email}</span> to share this
            account&apos;s memory on Engram as {article} {role}.
          </p>
        </div>
      </div>

      <dl
        data-testid="invitation-terms"
        className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-2 rounded-lg border border-border bg-surface px-4 py-3 text-sm"
      >
        <Row term="Account">{invitation.accountName}</Row>
        <Row term="Role">
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <Badge variant="accent">{roleLabel(invitation.role)}</Badge>
            <span className="text-xs text-muted-foreground">{ROLE_SUMMARIES[invitation.role]}</span>
          </span>
        </Row>
        <Row term="Invited by">{invitation.invitedBy}</Row>
        <Row term="Expires">{formatDate(invitation.expiresAt)}</Row>
      </dl>

      {status === 'checking' ? (
        <div className="flex justify-center py-2" aria-busy>
          <Spinner className="text-muted-foreground" />
        </div>
      ) : status === 'authenticated' && user ? (
        sameEmail(user.email, invitation.email) ? (
          <AcceptActions token={token} invitation={invitation} />
        ) : (
          <OtherPerson signedInAs={user.email} invitedEmail={invitation.email} />
        )
      ) : (
        <SignInActions email={invitation.email} />
      )}
    </Card>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-muted-foreground">{term}</dt>
      <dd className="min-w-0 font-medium wrap-anywhere">{children}</dd>
    </>
  );
}

function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function AcceptActions({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const accept = useAcceptInvitation();
  const account = useAccount();
  const navigate = useNavigate();
  const gone = accept.error instanceof ApiError && accept.error.status === 404;
  return (
    <div className="grid gap-3">
      {accept.isError ? (
        <Alert variant="error">
          {gone
            ? INVALID_INVITATION
            : errorMessage(accept.error, 'Failed to accept the invitation')}
        </Alert>
      ) : null}
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button
          variant="outline"
          onClick={() => {
            clearPendingInvitation();
            void navigate('/dashboard');
          }}
        >
          Not now
        </Button>
        <Button
          disabled={accept.isPending || gone}
          onClick={() =>
            accept.mutate(token, {
              onSuccess: (joined) => {
                clearPendingInvitation();
                toast.success(`You joined ${invitation.accountName}`);
                account.switchTo(joined.accountId, '/dashboard');
              },
              onError: (error) => {
                if (error instanceof ApiError && error.status === 404) clearPendingInvitation();
              },
            })
          }
        >
          {accept.isPending ? <Spinner /> : <UserPlus aria-hidden />}
          Accept invitation
        </Button>
      </div>
    </div>
  );
}

function OtherPerson({ signedInAs, invitedEmail }: { signedInAs: string; invitedEmail: string }) {
  const { signOut } = useSession();
  return (
    <div className="grid gap-3">
      <div
        role="note"
        className="flex items-start gap-2 rounded-lg border border-warning-soft-foreground/25 bg-warning-soft px-3 py-2.5 text-sm text-warning-soft-foreground"
      >
        <CircleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
        <p className="min-w-0 wrap-anywhere">
          You are signed in as <span className="font-medium">{signedInAs}</span>. This invitation is
          for <span className="font-medium">{invitedEmail}</span>: sign in with that email to accept
          it.
        </p>
      </div>
      <Button className="justify-self-end" variant="outline" onClick={() => void signOut()}>
        <LogIn aria-hidden />
        Sign in as {invitedEmail}
      </Button>
    </div>
  );
}

function SignInActions({ email }: { email: string }) {
  const location = useLocation();
  // The sign-in and sign-up pages come back here afterwards (GuestOnly's `from`).
  const back = { from: location };
  return (
    <div className="grid gap-3">
      <p className="text-center text-sm text-muted-foreground">
        Sign in or create an account with{' '}
        <span className="font-medium text-foreground">{email}</span> to accept.
      </p>
      <div className="grid gap-2 sm:grid-cols-2">
        <Button asChild variant="outline">
          <Link to="/signup" state={back}>
            <UserPlus aria-hidden />
            Create an account
          </Link>
        </Button>
        <Button asChild>
          <Link to="/login" state={back}>
            <LogIn aria-hidden />
            Sign in
          </Link>
        </Button>
      </div>
    </div>
  );
}

function InvalidInvitation() {
  const { status } = useSession();
  return (
    <Card className="grid gap-4 p-6">
      <h1 className="text-lg font-semibold tracking-tight">Invitation not valid</h1>
      <Alert variant="error">{INVALID_INVITATION}</Alert>
      <Button variant="outline" asChild className="justify-self-start">
        {status === 'authenticated' ? (
          <Link to="/dashboard">Go to the dashboard</Link>
        ) : (
          <Link to="/">Go to the home page</Link>
        )}
      </Button>
    </Card>
  );
}
