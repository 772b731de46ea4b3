import { toast } from 'sonner';
import { ApiError } from '@/lib/api-client';

/**
 * A green notice with an Undo action (issue 58): the spec's words for a
 * delete ('Entity deleted successfully'), and Undo reverting the call that
 * made it (docs/history.md, Undo). The notice outlives the screen that raised
 * it (the entity page goes to /entities), so `undo` must not depend on that
 * screen being shown: a plain call, not a component's mutation.
 */
export function showUndoNotice(message: string, undo: () => Promise<unknown>) {
  toast.success(message, {
    action: {
      label: 'Undo',
      onClick: () => {
        undo().then(
          () => toast.success('Delete undone'),
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
