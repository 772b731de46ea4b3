import { useEffect, useRef } from 'react';

/**
 * The dialogs open now, the last opened on top. The browser's Back closes the
 * top one instead of leaving the page (`DialogBackGuard`, mounted once inside
 * the router); a dialog that holds typed input asks first, as Escape does.
 */
type Dismiss = () => void;

const openDialogs: { dismiss: Dismiss }[] = [];

export function hasOpenDialog(): boolean {
  return openDialogs.length > 0;
}

/** Asks the top dialog to close (as Escape would); false when none is open. */
export function dismissTopDialog(): boolean {
  const top = openDialogs.at(-1);
  if (!top) return false;
  top.dismiss();
  return true;
}

/** Keeps a dialog on the stack while `open`; `dismiss` is read when Back is pressed. */
export function useOpenDialog(open: boolean, dismiss: Dismiss): void {
  const latest = useRef(dismiss);
  useEffect(() => {
    latest.current = dismiss;
  });
  useEffect(() => {
    if (!open) return;
    const entry = { dismiss: () => latest.current() };
    openDialogs.push(entry);
    return () => {
      const index = openDialogs.indexOf(entry);
      if (index >= 0) openDialogs.splice(index, 1);
    };
  }, [open]);
}
