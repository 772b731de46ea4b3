import { ROLL_GRACE_DAYS, type ApiKey, type RolledApiKey } from '@engram/shared';
import { Ban, CalendarClock, KeyRound, RefreshCw, TimerOff } from 'lucide-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Alert } from '@/components/ui/alert';
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
  const rollKey = useRollApiKey();
  return (
    <ConfirmDialog
      open={apiKey !== null}
      onClose={() => {
        // The next key asked about starts without this one's error.
        rollKey.reset();
        onClose();
      }}
      title="Roll API Key"
      description={
        <>
          Replace <span className="font-medium text-foreground">{apiKey?.name}</span> with a new key
          without downtime.
        </>
      }
      pending={rollKey.isPending}
      action="Roll Key"
      actionIcon={<RefreshCw aria-hidden />}
      onConfirm={() => {
        if (!apiKey) return;
        rollKey.mutate(apiKey.id, {
          onSuccess: (rolled) => {
            rollKey.reset();
            onRolled(rolled, apiKey.name);
          },
        });
      }}
    >
      {apiKey ? <ConsequenceList label="What rolling does" items={consequences(apiKey)} /> : null}
      {rollKey.isError ? (
        <Alert variant="error">{errorMessage(rollKey.error, 'Failed to roll API key')}</Alert>
      ) : null}
    </ConfirmDialog>
  );
}

/** When the current key would stop working if rolled now: in 2 weeks, or its own earlier expiry. */
function graceEnd(apiKey: ApiKey, now = Date.now()): string {
  const grace = now + ROLL_GRACE_DAYS * DAY_MS;
  const own = apiKey.expiresAt ? new Date(apiKey.expiresAt).getTime() : Infinity;
  return new Date(Math.min(grace, own)).toISOString();
}

/** What rolling this key does, told before the person confirms. */
function consequences(apiKey: ApiKey): Consequence[] {
  const newKey = {
    icon: KeyRound,
    text: 'A new key is created at once and shown to you one time.',
  };
  const giveNewKey = {
    icon: RefreshCw,
    text: 'Give your agents and scripts the new key before then.',
  };
  if (apiKey.isExpired) {
    return [
      newKey,
      { icon: CalendarClock, text: 'The current key has already expired and stays expired.' },
      giveNewKey,
    ];
  }
  return [
    newKey,
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
}
