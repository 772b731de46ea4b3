import * as DialogPrimitive from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
} from 'react';
import { cn } from '@/lib/cn';
import { Button } from './button';
import { useOpenDialog } from './dialog-stack';

interface DialogControl {
  /** Closes the dialog as its own close button does. */
  close: () => void;
  /** How a dismissal (Escape, a click outside, Back) is handled; the content sets it. */
  setDismiss: (dismiss: (() => void) | null) => void;
}

const DialogControlContext = createContext<DialogControl | null>(null);

/**
 * A dialog root (Radix's, controlled or not). While open it is on the stack of
 * open dialogs, so the browser's Back closes it instead of leaving the page.
 */
export function Dialog({
  open: openProp,
  defaultOpen = false,
  onOpenChange,
  ...props
}: ComponentProps<typeof DialogPrimitive.Root>) {
  const [openState, setOpenState] = useState(defaultOpen);
  const open = openProp ?? openState;
  const setOpen = useCallback(
    (next: boolean) => {
      if (openProp === undefined) setOpenState(next);
      onOpenChange?.(next);
    },
    [openProp, onOpenChange],
  );
  // One close for the dialog's life: the content's Back handler never goes stale
  // (a parent's inline onOpenChange changes on every render).
  const latestSetOpen = useRef(setOpen);
  useEffect(() => {
    latestSetOpen.current = setOpen;
  });
  const close = useCallback(() => latestSetOpen.current(false), []);
  const dismissRef = useRef<(() => void) | null>(null);
  useOpenDialog(open, () => (dismissRef.current ?? close)());
  const control = useMemo<DialogControl>(
    () => ({ close, setDismiss: (dismiss) => (dismissRef.current = dismiss) }),
    [close],
  );
  return (
    <DialogControlContext.Provider value={control}>
      <DialogPrimitive.Root open={open} onOpenChange={setOpen} {...props} />
    </DialogControlContext.Provider>
  );
}

const DialogEditedContext = createContext<((edited: boolean) => void) | null>(null);

/**
 * Tells a guarded dialog (`DialogContent guardInput`) whether its form holds
 * changes that no text field shows (a picked entity, a chosen type).
 */
export function useDialogEdited(edited: boolean): void {
  const report = useContext(DialogEditedContext);
  useEffect(() => {
    report?.(edited);
  }, [report, edited]);
  // A form that goes away (the dialog closed) leaves nothing behind for the next opening.
  useEffect(() => () => report?.(false), [report]);
}

export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

function DialogOverlay({ className, ...props }: ComponentProps<typeof DialogPrimitive.Overlay>) {
  return (
    <DialogPrimitive.Overlay
      className={cn(
        'fixed inset-0 z-50 bg-zinc-950/50 data-[state=open]:animate-fade-in',
        className,
      )}
      {...props}
    />
  );
}

interface DialogContentProps extends ComponentProps<typeof DialogPrimitive.Content> {
  /**
   * Escape, a click outside and the browser's Back ask "Discard your changes?"
   * once something was typed in the dialog (or `useDialogEdited(true)` said
   * so) instead of throwing it away. Cancel and the close button still close.
   */
  guardInput?: boolean;
}

export function DialogContent({
  className,
  children,
  guardInput = false,
  onInput,
  onEscapeKeyDown,
  onInteractOutside,
  ...props
}: DialogContentProps) {
  const control = useContext(DialogControlContext);
  const typed = useRef(false);
  const reported = useRef(false);
  const [asking, setAsking] = useState(false);
  const edited = () => guardInput && (typed.current || reported.current);

  // Back (through the stack of open dialogs) asks as Escape does.
  useEffect(() => {
    if (!control || !guardInput) return;
    control.setDismiss(() => {
      if (typed.current || reported.current) setAsking(true);
      else control.close();
    });
    return () => control.setDismiss(null);
  }, [control, guardInput]);

  const forgetTyped = useCallback(() => {
    typed.current = false;
  }, []);

  const report = useCallback((value: boolean) => {
    reported.current = value;
  }, []);

  return (
    <DialogPrimitive.Portal>
      <DialogOverlay />
      <DialogPrimitive.Content
        className={cn(
          'fixed top-1/2 left-1/2 z-50 grid w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 gap-4 rounded-lg border border-border bg-popover p-6 shadow-lg outline-none data-[state=open]:animate-zoom-in',
          className,
        )}
        onInput={(event) => {
          typed.current = true;
          onInput?.(event);
        }}
        onEscapeKeyDown={(event) => {
          onEscapeKeyDown?.(event);
          if (event.defaultPrevented || !edited()) return;
          event.preventDefault();
          setAsking(true);
        }}
        onInteractOutside={(event) => {
          onInteractOutside?.(event);
          if (event.defaultPrevented || !edited()) return;
          event.preventDefault();
          setAsking(true);
        }}
        {...props}
      >
        {/* Each opening starts with nothing typed (this component outlives the open content). */}
        {guardInput ? <OnOpen run={forgetTyped} /> : null}
        <DialogEditedContext.Provider value={guardInput ? report : null}>
          {children}
        </DialogEditedContext.Provider>
        {guardInput ? (
          <DiscardChanges
            open={asking}
            onKeep={() => setAsking(false)}
            onDiscard={() => {
              setAsking(false);
              control?.close();
            }}
          />
        ) : null}
        <DialogPrimitive.Close className="absolute top-4 right-4 rounded-md p-1 text-muted-foreground transition-colors hover:bg-muted hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
          <X className="size-4" aria-hidden />
          <span className="sr-only">Close</span>
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

/** A panel that drops from the top edge; the mobile navigation uses it. */
export function SheetContent({
  className,
  children,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content>) {
  return (
    <DialogPrimitive.Portal>
      <DialogOverlay />
      <DialogPrimitive.Content
        className={cn(
          'fixed inset-x-0 top-0 z-50 border-b border-border bg-popover p-4 shadow-lg outline-none data-[state=open]:animate-slide-in-top',
          className,
        )}
        {...props}
      >
        {children}
        <DialogPrimitive.Close className="absolute top-4 right-4 rounded-md p-1.5 text-muted-foreground transition-colors hover:bg-muted hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
          <X className="size-4" aria-hidden />
          <span className="sr-only">Close menu</span>
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogHeader({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cn('flex flex-col gap-1.5 pr-6', className)} {...props} />;
}

export function DialogFooter({ className, ...props }: ComponentProps<'div'>) {
  return (
    <div
      className={cn('flex flex-col-reverse gap-2 sm:flex-row sm:justify-end', className)}
      {...props}
    />
  );
}

export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cn('text-base font-semibold', className)} {...props} />;
}

export function DialogDescription({
  className,
  ...props
}: ComponentProps<typeof DialogPrimitive.Description>) {
  return (
    <DialogPrimitive.Description
      className={cn('text-sm text-muted-foreground', className)}
      {...props}
    />
  );
}

/** A dialog's footer: the outline button that closes it (Cancel, Close), then its actions. */
export function DialogActions({
  closeLabel = 'Cancel',
  closeDisabled = false,
  children,
}: {
  closeLabel?: string;
  /** Keeps the dialog open while its action is under way. */
  closeDisabled?: boolean;
  children?: ReactNode;
}) {
  return (
    <DialogFooter>
      <DialogClose asChild>
        <Button variant="outline" disabled={closeDisabled}>
          {closeLabel}
        </Button>
      </DialogClose>
      {children}
    </DialogFooter>
  );
}

/** A dialog's title with the description under it (its accessible name and description). */
export function DialogHeading({
  title,
  description,
  titleClassName,
  descriptionClassName,
}: {
  title: ReactNode;
  description: ReactNode;
  titleClassName?: string;
  descriptionClassName?: string;
}) {
  return (
    <DialogHeader>
      <DialogTitle className={titleClassName}>{title}</DialogTitle>
      <DialogDescription className={descriptionClassName}>{description}</DialogDescription>
    </DialogHeader>
  );
}

/** Runs `run` when the dialog's content appears (each opening). */
function OnOpen({ run }: { run: () => void }) {
  useLayoutEffect(run, [run]);
  return null;
}

/** The question a guarded dialog asks before throwing typed input away. */
function DiscardChanges({
  open,
  onKeep,
  onDiscard,
}: {
  open: boolean;
  onKeep: () => void;
  onDiscard: () => void;
}) {
  return (
    <DialogPrimitive.Root open={open} onOpenChange={(next) => (next ? undefined : onKeep())}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Content
          role="alertdialog"
          data-testid="discard-changes"
          className="fixed top-1/2 left-1/2 z-50 grid w-[calc(100%-3rem)] max-w-sm -translate-x-1/2 -translate-y-1/2 gap-3 rounded-lg border border-border bg-popover p-5 shadow-xl outline-none data-[state=open]:animate-zoom-in"
        >
          <DialogPrimitive.Title className="text-base font-semibold">
            Discard your changes?
          </DialogPrimitive.Title>
          <DialogPrimitive.Description className="text-sm text-muted-foreground">
            What you entered in this dialog will be lost.
          </DialogPrimitive.Description>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={onKeep} autoFocus>
              Keep editing
            </Button>
            <Button variant="destructive" onClick={onDiscard}>
              Discard
            </Button>
          </div>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}
