import type { ComponentProps, FormEventHandler, ReactNode } from 'react';
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '@/components/ui/card';

interface FormCardProps extends Omit<ComponentProps<typeof Card>, 'title' | 'onSubmit'> {
  title: ReactNode;
  description: ReactNode;
  onSubmit: FormEventHandler<HTMLFormElement>;
  /** The fields. */
  children: ReactNode;
  /** The submit button, at the end of the footer. */
  action: ReactNode;
  /** On the title (an id to label the card by, a color). */
  titleProps?: ComponentProps<typeof CardTitle>;
}

/** A settings card that is one form: title and description, the fields, the submit button. */
export function FormCard({
  title,
  description,
  onSubmit,
  children,
  action,
  titleProps,
  ...cardProps
}: FormCardProps) {
  return (
    <Card {...cardProps}>
      <form noValidate onSubmit={onSubmit}>
        <CardHeader>
          <CardTitle {...titleProps}>{title}</CardTitle>
          <CardDescription>{description}</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">{children}</CardContent>
        <CardFooter className="justify-end">{action}</CardFooter>
      </form>
    </Card>
  );
}
