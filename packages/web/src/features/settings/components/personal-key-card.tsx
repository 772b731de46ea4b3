import { maskKey, type User } from '@engram/shared';
import { Check, Copy, Eye, EyeOff, RefreshCw } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '@/components/ui/card';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { useSession } from '@/lib/session';
import { useRegenerateApiKey } from '../api/regenerate-api-key';

const COPIED_FOR_MS = 2000;

/**
 * The user's personal API key (spec §3 User.apiKey): masked, with reveal and
 * copy, and a regenerate that replaces it in the session, so everything that
 * reads the session's key (the realtime connection) moves to the new one.
 */
export function PersonalKeyCard({ user }: { user: User }) {
  const { replaceUser } = useSession();
  const regenerate = useRegenerateApiKey();
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState(false);
  const apiKey = user.apiKey;
  const titleId = useId();

  useEffect(() => {
    if (!copied) return undefined;
    const timer = window.setTimeout(() => setCopied(false), COPIED_FOR_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);

  async function copy(value: string) {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch (error) {
      // Spec §8: a refused clipboard is only logged; the key can be revealed and selected.
      console.error('Could not copy to the clipboard', error);
    }
  }

  function confirmRegenerate() {
    regenerate.mutate(undefined, {
      onSuccess: (newKey) => {
        replaceUser({ ...user, apiKey: newKey });
        setConfirming(false);
        setRevealed(false);
        setCopied(false);
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

  const showing = revealed && apiKey !== null;
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
          <div className="flex items-center gap-2">
            <code
              data-testid="personal-api-key"
              className={cn(
                'min-w-0 flex-1 rounded-md border border-border bg-muted px-3 py-1.5 font-mono text-[13px] leading-5',
                showing ? 'break-all' : 'truncate',
              )}
            >
              {showing ? apiKey : maskKey(apiKey)}
            </code>
            <Button
              variant="outline"
              size="icon"
              className="size-8"
              aria-label={showing ? 'Hide key' : 'Show key'}
              title={showing ? 'Hide key' : 'Show key'}
              aria-pressed={showing}
              onClick={() => setRevealed((current) => !current)}
            >
              {showing ? <EyeOff aria-hidden /> : <Eye aria-hidden />}
            </Button>
            <Button
              variant="outline"
              size="icon"
              className="size-8"
              aria-label={copied ? 'Copied' : 'Copy key'}
              title={copied ? 'Copied' : 'Copy key'}
              onClick={() => void copy(apiKey)}
            >
              {copied ? <Check className="text-success" aria-hidden /> : <Copy aria-hidden />}
            </Button>
          </div>
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
          <DialogHeader>
            <DialogTitle>Regenerate personal API key?</DialogTitle>
            <DialogDescription>
              A new key replaces your current one at once. Anything still using the current key
              stops working immediately and needs the new one. This cannot be undone.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline" disabled={regenerate.isPending}>
                Cancel
              </Button>
            </DialogClose>
            <Button
              variant="destructive"
              disabled={regenerate.isPending}
              onClick={confirmRegenerate}
            >
              {regenerate.isPending ? <Spinner /> : null}
              Regenerate Key
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
