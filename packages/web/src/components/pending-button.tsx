import type { ReactNode } from 'react';
import { Button, type ButtonProps } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

interface PendingButtonProps extends Omit<ButtonProps, 'asChild'> {
  /** The work the button started is under way: a spinner, and the button held back. */
  pending: boolean;
  /** Before the label while not pending (the spinner takes its place then). */
  icon?: ReactNode;
}

/** A button that shows its work under way (a submit, a confirm, a "load more"). */
export function PendingButton({
  pending,
  icon = null,
  disabled,
  children,
  ...props
}: PendingButtonProps) {
  return (
    <Button disabled={pending || disabled} {...props}>
      {pending ? <Spinner /> : icon}
      {children}
    </Button>
  );
}
