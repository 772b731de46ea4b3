import type { ApiKey } from '@engram/shared';
import { History, KeyRound, RefreshCw, Trash2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { SecretValue } from '@/components/secret-value';
import { cn } from '@/lib/cn';
import {
  formatCount,
  formatDate,
  formatDateTime,
  keyStateOf,
  maskedPreview,
  type KeyRoll,
  type KeyState,
} from '../key-display';
import { scopeLabel } from '../key-scope';

interface ApiKeyCardProps {
  apiKey: ApiKey;
  /** The full key, when it was created or rolled in this session. */
  secret?: string | undefined;
  /** The keys of its roll, if it was rolled or issued by a roll. */
  roll?: KeyRoll;
  /** Absent when the person may not roll the key (only its maker may: key-display.ts `mayRoll`). */
  onRoll?: ((key: ApiKey) => void) | undefined;
  onDelete: (key: ApiKey) => void;
}

/** Red when expired, amber when expiring soon. */
const CARD_TONE: Record<KeyState, string> = {
  expired: 'border-destructive/30 bg-destructive-soft',
  'expiring-soon': 'border-warning-soft-foreground/25 bg-warning-soft',
  active: '',
};

const ICON_TONE: Record<KeyState, string> = {
  expired: 'bg-destructive/10 text-destructive-soft-foreground',
  'expiring-soon': 'bg-warning-soft-foreground/10 text-warning-soft-foreground',
  active: 'bg-primary-soft text-primary-soft-foreground',
};

export function ApiKeyCard({ apiKey, secret, roll = {}, onRoll, onDelete }: ApiKeyCardProps) {
  const state = keyStateOf(apiKey);
  const titleId = `api-key-${apiKey.id}-name`;
  return (
    <Card
      role="article"
      aria-labelledby={titleId}
      data-state={state}
      className={cn('grid gap-4 p-4 sm:p-5', CARD_TONE[state])}
    >
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 items-start gap-3">
          <div
            className={cn(
              'flex size-9 shrink-0 items-center justify-center rounded-lg',
              ICON_TONE[state],
            )}
          >
            <KeyRound className="size-4" aria-hidden />
          </div>
          <div className="min-w-0">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <h3 id={titleId} className="min-w-0 font-semibold wrap-anywhere">
                {apiKey.name}
              </h3>
              {state === 'expired' ? (
                <Badge variant="danger" className="border-destructive/25 bg-destructive/10">
                  Expired
                </Badge>
              ) : null}
              {state === 'expiring-soon' ? (
                <Badge
                  variant="warning"
                  className="border-warning-soft-foreground/25 bg-warning-soft-foreground/10"
                >
                  Expires Soon
                </Badge>
              ) : null}
            </div>
            <p className="mt-0.5 text-xs text-muted-foreground">
              Created {formatDate(apiKey.createdAt)} by {apiKey.createdBy.name}
            </p>
            <p className="mt-0.5 text-xs text-muted-foreground wrap-anywhere">
              Access: <span className="text-foreground">{scopeLabel(apiKey.permissions)}</span>
            </p>
            <RollNotes apiKey={apiKey} state={state} roll={roll} />
          </div>
        </div>
        <div className="flex shrink-0 gap-2 pl-12 sm:pl-0">
          {onRoll ? (
            <Button
              variant="outline"
              size="sm"
              aria-describedby={titleId}
              onClick={() => onRoll(apiKey)}
            >
              <RefreshCw aria-hidden />
              Roll
            </Button>
          ) : null}
          <Button
            variant="outline"
            size="sm"
            className="text-destructive hover:bg-destructive-soft"
            aria-describedby={titleId}
            onClick={() => onDelete(apiKey)}
          >
            <Trash2 aria-hidden />
            Delete
          </Button>
        </div>
      </div>

      <SecretValue
        testId="key-value"
        masked={maskedPreview(apiKey, secret)}
        secret={secret}
        className={state === 'active' ? 'bg-muted' : 'bg-card'}
        frameClassName="sm:max-w-xl"
      />

      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 sm:grid-cols-4">
        <Stat label="Total Requests">{formatCount(apiKey.usage.totalRequests)}</Stat>
        <Stat label="Active Days">{formatCount(apiKey.usage.activeDays)}</Stat>
        <Stat label="Last Used">
          {apiKey.lastUsedAt ? formatDateTime(apiKey.lastUsedAt) : 'Never'}
        </Stat>
        <Stat label={state === 'expired' ? 'Expired' : 'Expiry'}>
          {apiKey.expiresAt ? formatDate(apiKey.expiresAt) : 'Never expires'}
        </Stat>
      </dl>
    </Card>
  );
}

const PREVIEW = 'font-mono text-[12px] whitespace-nowrap text-foreground';

/**
 * After a roll two cards share one name: the old one says what replaced it
 * and until when it works, the new one which key it replaces.
 */
function RollNotes({ apiKey, state, roll }: { apiKey: ApiKey; state: KeyState; roll: KeyRoll }) {
  const { replacedBy, replaces } = roll;
  const notes: ReactNode[] = [];
  if (apiKey.replacedById !== null) {
    notes.push(
      replacedBy ? (
        <>
          Replaced on {formatDate(replacedBy.createdAt)} by{' '}
          <span className={PREVIEW}>{replacedBy.keyPreview}</span>
          {state !== 'expired' && apiKey.expiresAt
            ? ` · works until ${formatDate(apiKey.expiresAt)}`
            : null}
        </>
      ) : (
        'Rolled; the key that replaced it was deleted'
      ),
    );
  }
  if (replaces) {
    notes.push(
      <>
        Replaces the key rolled on {formatDate(apiKey.createdAt)} (
        <span className={PREVIEW}>{replaces.keyPreview}</span>)
      </>,
    );
  }
  if (notes.length === 0) return null;
  return (
    <div className="mt-1 grid gap-0.5">
      {notes.map((note, index) => (
        <p
          key={index}
          data-testid="roll-note"
          className="flex items-start gap-1.5 text-xs text-foreground/80"
        >
          <History className="mt-0.5 size-3.5 shrink-0 text-muted-foreground" aria-hidden />
          <span className="min-w-0 wrap-anywhere">{note}</span>
        </p>
      ))}
    </div>
  );
}

function Stat({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 text-sm font-medium tabular-nums">{children}</dd>
    </div>
  );
}
