import { maskKey, type User } from '@engram/shared';
import { RefreshCw } from 'lucide-react';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { SecretValue } from '@/components/secret-value';
import { PendingButton } from '@/components/pending-button';
import { Button } from '@/components/ui/button';
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '@/components/ui/card';
import { Dialog, DialogActions, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { ApiError } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import { useRegenerateApiKey } from '../api/regenerate-api-key';

/**
 * The user's personal API key (docs/product.md, Shapes): masked, with reveal and
 * copy, and a regenerate that replaces it in the session, so everything that
 * reads the session's key (the realtime connection) moves to the new one.
 */
export function PersonalKeyCard({ user }: { user: User }) {
  const { replaceUser } = useSession();
  const regenerate = useRegenerateApiKey();
  const [confirming, setConfirming] = useState(false);
  const apiKey = user.apiKey;
  const titleId = useId();

  function confirmRegenerate() {
    regenerate.mutate(undefined, {
      onSuccess: (newKey) => {
        replaceUser({ ...user, apiKey: newKey });
        setConfirming(false);
        toast.success('Personal API key regenerated');
      },
      onError: (error) => {
        toast.error(
          error instanceof ApiError && error.body
            ? error.message
            : 'Failed to regenerate personal API key',
        );
      },
    });
  }

  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle id={titleId}>Personal API Key</CardTitle>
        <CardDescription>
          Your own key: it acts as you, and the app uses it for its live connection. Keys for agents
          and scripts are on the{' '}
          <Link to="/api-keys" className="font-medium text-primary hover:underline">
            API Keys
          </Link>{' '}
          page.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {apiKey === null ? (
          <p className="text-sm text-muted-foreground">You don&apos;t have a personal key yet.</p>
        ) : (
          // Keyed by the key: a regenerated key starts hidden, and not 'Copied'.
          <SecretValue
            key={apiKey}
            testId="personal-api-key"
            masked={maskKey(apiKey)}
            secret={apiKey}
            className="bg-muted"
          />
        )}
      </CardContent>
      <CardFooter className="justify-end">
        <Button variant="outline" onClick={() => setConfirming(true)}>
          <RefreshCw aria-hidden />
          Regenerate
        </Button>
      </CardFooter>

      <Dialog
        open={confirming}
        onOpenChange={(open) => {
          if (!regenerate.isPending) setConfirming(open);
        }}
      >
        <DialogContent>
          <DialogHeading
            title="Regenerate personal API key?"
            description={
              <>
                A new key replaces your current one at once. Anything still using the current key
                stops working immediately and needs the new one. This cannot be undone.
              </>
            }
          />
          <DialogActions closeDisabled={regenerate.isPending}>
            <PendingButton
              variant="destructive"
              pending={regenerate.isPending}
              onClick={confirmRegenerate}
            >
              Regenerate Key
            </PendingButton>
          </DialogActions>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
