import { toast } from 'sonner';
import { ApiError } from '@/lib/api-client';

export interface UndoNoticeOptions {
  /** The second line, e.g. what a merge moved. */
  description?: string;
  /** The notice after Undo worked ('Delete undone'). */
  undone?: string;
  /** How long the notice stays, in ms (the toaster's 5 s when left out). */
  duration?: number;
}

/**
 * A green notice with an Undo action (issue 58): the spec's words for a
 * delete ('Entity deleted successfully'), and Undo reverting the call that
 * made it (docs/history.md, Undo). The notice outlives the screen that raised
 * it (the entity page goes to /entities), so `undo` must not depend on that
 * screen being shown: a plain call, not a component's mutation.
 */
export function showUndoNotice(
  message: string,
  undo: () => Promise<unknown>,
  { description, undone = 'Delete undone', duration }: UndoNoticeOptions = {},
) {
  toast.success(message, {
    ...(description ? { description } : {}),
    ...(duration ? { duration } : {}),
    action: {
      label: 'Undo',
      onClick: () => {
        undo().then(
          () => toast.success(undone),
          (error: unknown) =>
            toast.error('Failed to undo', {
              description: error instanceof ApiError && error.body ? error.message : undefined,
            }),
        );
      },
    },
    // The toaster lets clicks through a notice (components/ui/toaster.tsx); its action takes them.
    classNames: { actionButton: 'pointer-events-auto' },
  });
}
