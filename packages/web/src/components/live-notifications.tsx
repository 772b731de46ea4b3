import {
  Link2,
  Link2Off,
  Merge,
  MessageSquarePlus,
  Pencil,
  Plus,
  Trash2,
  X,
  type LucideIcon,
} from 'lucide-react';
import type { GraphEventType } from '@engram/shared';
import { cn } from '@/lib/cn';
import type { LiveNotification } from '@/lib/realtime';

const LOOK: Record<GraphEventType, { icon: LucideIcon; tone: string }> = {
  entity_created: { icon: Plus, tone: 'bg-success-soft text-success-soft-foreground' },
  entity_updated: { icon: Pencil, tone: 'bg-primary-soft text-primary-soft-foreground' },
  entity_deleted: { icon: Trash2, tone: 'bg-destructive-soft text-destructive-soft-foreground' },
  observation_added: {
    icon: MessageSquarePlus,
    tone: 'bg-primary-soft text-primary-soft-foreground',
  },
  relation_created: { icon: Link2, tone: 'bg-success-soft text-success-soft-foreground' },
  relation_updated: { icon: Link2, tone: 'bg-primary-soft text-primary-soft-foreground' },
  relation_deleted: {
    icon: Link2Off,
    tone: 'bg-destructive-soft text-destructive-soft-foreground',
  },
  entity_merged: { icon: Merge, tone: 'bg-primary-soft text-primary-soft-foreground' },
};

/** On a phone only the newest few show, so the stack never covers most of the page. */
const PHONE_LIMIT = 3;

/**
 * Live notifications of changes made elsewhere (docs/product.md, States; another tab, an
 * agent, the API — this tab's own changes have their toast): a compact stack
 * at the bottom right (full width at the bottom on phones, newest 3 only),
 * newest at the bottom, each dismissable. The top right belongs to toast
 * notices (docs/product.md, The signed-in app), so the two never cover each other; the bottom edge keeps
 * the header, its connection badge and the page title clear. A card lets
 * clicks through to the page below it: only its dismiss button takes the
 * pointer, so a card never stands between the person and a control.
 */
export function LiveNotifications({
  notifications,
  onDismiss,
}: {
  notifications: readonly LiveNotification[];
  onDismiss: (id: string) => void;
}) {
  // Newest first in the queue; newest nearest the corner on screen.
  const shown = [...notifications].reverse();
  const firstOnPhones = shown.length - PHONE_LIMIT;
  return (
    <section
      aria-label="Live updates"
      className="pointer-events-none fixed inset-x-4 bottom-4 z-40 flex justify-end sm:inset-x-auto sm:right-6 sm:bottom-6"
    >
      <ol role="log" aria-live="polite" className="flex w-full flex-col gap-2 sm:w-80">
        {shown.map((notification, index) => {
          const { icon: Icon, tone } = LOOK[notification.type];
          return (
            <li
              key={notification.id}
              className={cn(
                'flex animate-fade-in items-start gap-3 rounded-lg border border-border bg-popover p-2.5 text-sm shadow-md sm:p-3',
                index < firstOnPhones && 'max-sm:hidden',
              )}
            >
              <span
                className={cn('flex size-7 shrink-0 items-center justify-center rounded-md', tone)}
                aria-hidden
              >
                <Icon className="size-4" />
              </span>
              <div className="min-w-0 flex-1 pt-0.5">
                <p className="font-medium wrap-anywhere text-foreground">{notification.title}</p>
                {notification.detail ? (
                  <p className="truncate text-xs text-muted-foreground">{notification.detail}</p>
                ) : null}
              </div>
              <button
                type="button"
                onClick={() => onDismiss(notification.id)}
                aria-label={`Dismiss: ${notification.title}`}
                className="pointer-events-auto -m-1 flex size-7 shrink-0 cursor-pointer items-center justify-center rounded-md text-muted-foreground outline-none hover:bg-muted hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
              >
                <X className="size-4" aria-hidden />
              </button>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
