import type { ComponentProps } from 'react';
import { FormField } from '@/components/ui/form-field';

/**
 * The email address of sign-in and sign-up. type=text, not email: browsers
 * would silently trim the value, and the form's own trimming and messages
 * (docs/product.md, Forms) must see what was typed.
 */
export function EmailField(props: Omit<ComponentProps<typeof FormField>, 'label'>) {
  return (
    <FormField
      label="Email Address"
      autoComplete="email"
      inputMode="email"
      autoCapitalize="none"
      spellCheck={false}
      placeholder="you@example.com"
      {...props}
    />
  );
}
