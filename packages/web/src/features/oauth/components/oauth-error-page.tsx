import { Link, useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConsentLayout } from './consent-layout';
import { oauthErrorMessage } from './oauth-error-messages';

/**
 * /oauth/error?error=<code> (docs/connect.md): where the server sends a
 * browser whose app connection cannot go on — an invalid request from the
 * app, never sent back to it. Says what went wrong from the web app's own
 * table (never the request's words) and offers a way back.
 */
export function OAuthErrorPage() {
  const [searchParams] = useSearchParams();
  const message = oauthErrorMessage(searchParams.get('error'));
  return (
    <ConsentLayout>
      <title>Connecting an app to Engram failed</title>
      <Card className="grid gap-4 p-6">
        <h1 className="text-xl leading-7 font-semibold tracking-tight">{message.title}</h1>
        <Alert variant="error">{message.body}</Alert>
        <Button variant="outline" asChild className="justify-self-start">
          <Link to="/dashboard">Go to the dashboard</Link>
        </Button>
      </Card>
    </ConsentLayout>
  );
}
