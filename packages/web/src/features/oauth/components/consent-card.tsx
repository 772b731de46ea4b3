import { Check, CornerDownLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useDecideInteraction, type ConsentDecision } from '../api/decide-interaction';
import type { OAuthInteraction } from '@engram/shared';
import { browser } from '../browser';
import { AppLogo } from '@/components/app-logo';
import { AppSiteLink } from '@/components/app-site-link';
import { EXPIRED_MESSAGE } from './consent-messages';

interface ConsentCardProps {
  uid: string;
  interaction: OAuthInteraction;
  /** The signed-in person's email. */
  email: string;
  /**
   * The name of the account the app will reach, when the person belongs to
   * more than one (the one chosen in the header's switcher).
   */
  accountName?: string | undefined;
}

/**
 * The question itself (docs/product.md, Consent): who asks, where the answer
 * goes, which account and what it may do; Allow or Deny, then the server
 * sends the browser back to the app.
 */
export function ConsentCard({ uid, interaction, email, accountName }: ConsentCardProps) {
  const { client, scopes } = interaction;
  const decide = useDecideInteraction(uid);
  // After an answer the browser is on its way out: the buttons stay off.
  const busy = decide.isPending || decide.isSuccess;

  function answer(decision: ConsentDecision) {
    decide.mutate(decision, { onSuccess: (redirectTo) => browser.assign(redirectTo) });
  }

  return (
    <Card className="grid gap-6 p-6">
      <div className="flex items-center gap-4">
        <AppLogo logoUri={client.logoUri} size="lg" />
        <div className="min-w-0">
          <h1 className="text-xl leading-7 font-semibold tracking-tight wrap-anywhere">
            Connect {client.name} to Engram
          </h1>
          <p className="mt-0.5 text-xs text-muted-foreground">
            Name and logo as the app states them; Engram has not checked them.
          </p>
        </div>
      </div>

      <div className="rounded-lg border border-primary/25 bg-primary-soft px-4 py-3">
        <div className="flex items-center gap-2 text-xs font-medium text-primary-soft-foreground">
          <CornerDownLeft className="size-4" aria-hidden />
          You will be sent back to
        </div>
        <p
          data-testid="redirect-host"
          className="mt-0.5 text-lg font-semibold wrap-anywhere text-foreground"
        >
          {client.redirectHost}
        </p>
        <p className="mt-1 text-xs text-muted-foreground">
          Allow only if you know this address and just asked to connect from it.
        </p>
      </div>

      <dl className="grid gap-3 text-sm">
        <Detail label="Account">
          {accountName ? (
            <span className="wrap-anywhere">
              <span className="font-medium">{accountName}</span>
              <span className="text-muted-foreground"> · as {email}</span>
            </span>
          ) : (
            <span className="wrap-anywhere">{email}</span>
          )}
        </Detail>
        <Detail label="Space">
          {/* The one space the address reaches: /mcp/<slug> that space, /mcp the default one. */}
          {interaction.space ? (
            <span className="font-mono text-xs wrap-anywhere">{interaction.space}</span>
          ) : (
            'The default space'
          )}
        </Detail>
        <Detail label="App's site">
          <AppSiteLink
            uri={client.clientUri}
            className="font-medium text-primary wrap-anywhere hover:underline"
            fallback={<span className="text-muted-foreground">Not given</span>}
          />
        </Detail>
      </dl>

      <section aria-labelledby="consent-scopes">
        <h2 id="consent-scopes" className="text-sm font-medium">
          {client.name} will be able to
        </h2>
        <ul className="mt-2 grid gap-2">
          {scopes.map(({ scope, description }) => (
            <li key={scope} className="flex items-start gap-2 text-sm">
              <Check className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
              <span>{description}</span>
            </li>
          ))}
        </ul>
      </section>

      {decide.isError ? (
        <Alert variant="error">
          {decide.error instanceof ApiError && decide.error.status === 404
            ? EXPIRED_MESSAGE
            : decide.error.message}
        </Alert>
      ) : null}

      <div className="grid gap-3">
        <div className="grid grid-cols-2 gap-3">
          <Button variant="outline" disabled={busy} onClick={() => answer('deny')}>
            {decide.isPending && decide.variables === 'deny' ? <Spinner /> : null}
            Deny
          </Button>
          <Button disabled={busy} onClick={() => answer('allow')}>
            {decide.isPending && decide.variables === 'allow' ? <Spinner /> : null}
            Allow
          </Button>
        </div>
        <p className="text-center text-xs text-muted-foreground">
          You can revoke access at any time in Settings, under Connected apps.
        </p>
      </div>
    </Card>
  );
}

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-start gap-3">
      <dt className="w-20 shrink-0 text-muted-foreground">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  );
}
