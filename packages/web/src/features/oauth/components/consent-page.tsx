import { Link, useSearchParams } from 'react-router';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useAccount } from '@/lib/account';
import { useSession } from '@/lib/session';
import { useInteraction } from '../api/get-interaction';
import { ConsentCard } from './consent-card';
import { ConsentLayout } from './consent-layout';
import { EXPIRED_MESSAGE } from './consent-messages';

/**
 * /oauth/consent?uid= (docs/product.md, Consent): where the server sends a
 * person's browser when a chat client asks to reach their memory over MCP.
 */
export function ConsentPage() {
  const [searchParams] = useSearchParams();
  const uid = searchParams.get('uid') ?? '';
  return (
    <ConsentLayout>
      {uid === '' ? <ExpiredRequest /> : <ConsentRequest key={uid} uid={uid} />}
    </ConsentLayout>
  );
}

function ConsentRequest({ uid }: { uid: string }) {
  const { user } = useSession();
  // The app reaches the account chosen in the header's switcher.
  const { accounts, current } = useAccount();
  const interaction = useInteraction(uid);

  if (interaction.isPending) {
    return (
      <>
        <title>Connect an app to Engram</title>
        <Card className="flex justify-center p-10" aria-busy>
          <Spinner className="size-5 text-muted-foreground" />
          <span className="sr-only">Loading…</span>
        </Card>
      </>
    );
  }
  if (interaction.isError) {
    if (interaction.error instanceof ApiError && interaction.error.status === 404) {
      return <ExpiredRequest />;
    }
    return (
      <>
        <title>Connect an app to Engram</title>
        <LoadErrorAlert onRetry={() => void interaction.refetch()}>
          {interaction.error.message}
        </LoadErrorAlert>
      </>
    );
  }
  return (
    <>
      <title>{`Connect ${interaction.data.client.name} to Engram`}</title>
      <ConsentCard
        uid={uid}
        interaction={interaction.data}
        email={user?.email ?? ''}
        accountName={accounts.length > 1 ? current?.name : undefined}
      />
    </>
  );
}

function ExpiredRequest() {
  return (
    <Card className="grid gap-4 p-6">
      <title>Connect an app to Engram</title>
      <Alert variant="error">{EXPIRED_MESSAGE}</Alert>
      <Button variant="outline" asChild className="justify-self-start">
        <Link to="/dashboard">Go to the dashboard</Link>
      </Button>
    </Card>
  );
}
