import { useEffect } from 'react';
import { useBlocker } from 'react-router';
import { dismissTopDialog, hasOpenDialog } from '@/components/ui/dialog-stack';

/**
 * The browser's Back while a dialog is open closes the dialog (asking first
 * when it holds typed input) and stays on the page: the router puts the
 * address back. Links and buttons inside a dialog still navigate. Mounted
 * once, inside the router (a router holds one blocker).
 */
export function DialogBackGuard() {
  const blocker = useBlocker(({ historyAction }) => historyAction === 'POP' && hasOpenDialog());
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    blocker.reset();
    dismissTopDialog();
  }, [blocker]);
  return null;
}
