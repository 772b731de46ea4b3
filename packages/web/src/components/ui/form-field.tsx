import { useId, type ComponentProps, type ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { Input } from './input';
import { Label } from './label';

interface FormFieldProps extends ComponentProps<typeof Input> {
  label: string;
  /** A message under the input; marks the input invalid. */
  error?: string | undefined;
  /** Help under the input, replaced by the error when there is one. */
  hint?: ReactNode;
}

/** A labelled input with its error wired up for assistive technology. */
export function FormField({ label, error, hint, id, className, ...inputProps }: FormFieldProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const messageId = `${inputId}-message`;
  const message = error ?? hint;
  return (
    <div className={cn('grid gap-2', className)}>
      <Label htmlFor={inputId}>{label}</Label>
      <Input
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={message ? messageId : undefined}
        {...inputProps}
      />
      {message ? (
        <p
          id={messageId}
          className={cn('text-xs', error ? 'text-destructive' : 'text-muted-foreground')}
        >
          {message}
        </p>
      ) : null}
    </div>
  );
}

/** A password's FormField; `autoComplete` tells password managers which one it is. */
export function PasswordField(
  props: Omit<FormFieldProps, 'type' | 'autoComplete'> & {
    autoComplete: 'current-password' | 'new-password';
  },
) {
  return <FormField type="password" {...props} />;
}

/** A field's error under it, with the id its input's aria-describedby names; nothing without one. */
export function FieldMessage({ id, message }: { id: string; message: string | null | undefined }) {
  return message ? (
    <p id={id} className="text-xs text-destructive">
      {message}
    </p>
  ) : null;
}
