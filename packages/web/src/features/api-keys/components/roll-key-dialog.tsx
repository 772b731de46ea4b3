import { ROLL_GRACE_DAYS, type ApiKey, type RolledApiKey } from '@engram/shared';
import { Ban, CalendarClock, KeyRound, RefreshCw, TimerOff } from 'lucide-react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
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
import { useRollApiKey } from '../api/roll-api-key';
import { errorMessage, formatDate } from '../key-display';
import { ConsequenceList, type Consequence } from './consequence-list';

const DAY_MS = 86_400_000;

interface RollKeyDialogProps {
  /** The key to roll; the dialog is open while one is set. */
  apiKey: ApiKey | null;
  onClose: () => void;
  onRolled: (rolled: RolledApiKey, name: string) => void;
}

export function RollKeyDialog({ apiKey, onClose, onRolled }: RollKeyDialogProps) {
  return (
    <Dialog open={apiKey !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        {apiKey ? <RollKeyForm apiKey={apiKey} onRolled={onRolled} /> : null}
      </DialogContent>
    </Dialog>
  );
}

/** When the current key would stop working if rolled now: in 2 weeks, or its own earlier expiry. */
function graceEnd(apiKey: ApiKey, now = Date.now()): string {
  const grace = now + ROLL_GRACE_DAYS * DAY_MS;
  const own = apiKey.expiresAt ? new Date(apiKey.expiresAt).getTime() : Infinity;
  return new Date(Math.min(grace, own)).toISOString();
}

function RollKeyForm({
  apiKey,
  onRolled,
}: {
  apiKey: ApiKey;
  onRolled: RollKeyDialogProps['onRolled'];
}) {
  const rollKey = useRollApiKey();
  const giveNewKey = {
    icon: RefreshCw,
    text: 'Give your agents and scripts the new key before then.',
  };
  const consequences: Consequence[] = apiKey.isExpired
    ? [
        { icon: KeyRound, text: 'A new key is created at once and shown to you one time.' },
        { icon: CalendarClock, text: 'The current key has already expired and stays expired.' },
        giveNewKey,
      ]
    : [
        { icon: KeyRound, text: 'A new key is created at once and shown to you one time.' },
        {
          icon: CalendarClock,
          text: (
            <>
              The current key keeps working for 2 weeks, until{' '}
              <span className="font-medium">{formatDate(graceEnd(apiKey))}</span>, then expires.
            </>
          ),
        },
        giveNewKey,
        // The server keeps at most one old key beside each key: a roll ends the one before.
        {
          icon: TimerOff,
          text: 'Only one old key keeps working at a time: if you roll the new key again, the current key stops working at once.',
        },
        {
          icon: Ban,
          text: 'If the current key replaced an older key that still works, that older key stops working now.',
        },
      ];

  return (
    <>
      <DialogHeader>
        <DialogTitle>Roll API Key</DialogTitle>
        <DialogDescription>
          Replace <span className="font-medium text-foreground">{apiKey.name}</span> with a new key
          without downtime.
        </DialogDescription>
      </DialogHeader>
      <ConsequenceList label="What rolling does" items={consequences} />
      {rollKey.isError ? (
        <Alert variant="error">{errorMessage(rollKey.error, 'Failed to roll API key')}</Alert>
      ) : null}
      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button
          disabled={rollKey.isPending}
          onClick={() =>
            rollKey.mutate(apiKey.id, { onSuccess: (rolled) => onRolled(rolled, apiKey.name) })
          }
        >
          {rollKey.isPending ? <Spinner /> : <RefreshCw aria-hidden />}
          Roll Key
        </Button>
      </DialogFooter>
    </>
  );
}
