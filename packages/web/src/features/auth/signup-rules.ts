import { registerInput, type RegisterInput } from '@engram/shared';
import { z } from 'zod';

export interface SignupFormValues {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  confirmPassword: string;
}

export type SignupField = keyof SignupFormValues;

export const SIGNUP_FIELDS: SignupField[] = [
  'firstName',
  'lastName',
  'email',
  'password',
  'confirmPassword',
];

/**
 * The shared registration rules, in the order docs/product.md (Forms) checks them: first
 * name, last name, email (required, then pattern), password (required, then
 * length), then the confirmation. Names are trimmed; the email is trimmed and
 * lower-cased by the shared schema itself.
 */
const signupSchema = z
  .object({
    firstName: registerInput.shape.firstName,
    lastName: registerInput.shape.lastName,
    email: registerInput.shape.email,
    password: registerInput.shape.password,
    confirmPassword: z.string(),
  })
  .refine((values) => values.password === values.confirmPassword, {
    message: 'Passwords do not match',
    path: ['confirmPassword'],
  });

export type SignupCheck =
  { ok: true; input: RegisterInput } | { ok: false; field: SignupField; message: string };

/** The first broken rule, or the cleaned registration payload. */
export function checkSignup(values: SignupFormValues): SignupCheck {
  const result = signupSchema.safeParse(values);
  if (result.success) {
    const { firstName, lastName, email, password } = result.data;
    return { ok: true, input: { firstName, lastName, email, password } };
  }
  const [first] = result.error.issues;
  const field = SIGNUP_FIELDS.find((name) => name === first?.path[0]) ?? 'confirmPassword';
  return { ok: false, field, message: first?.message ?? 'Please check the form' };
}

/** The submit button waits until every field has something in it (docs/product.md, Forms). */
export function allSignupFieldsFilled(values: Partial<SignupFormValues>): boolean {
  return SIGNUP_FIELDS.every((field) => (values[field] ?? '') !== '');
}

/** The live password checklist (docs/product.md, Public pages). Only the length is enforced. */
export const PASSWORD_HINTS = [
  { label: '8+ characters', test: (password: string) => password.length >= 8 },
  { label: 'Uppercase', test: (password: string) => /[A-Z]/.test(password) },
  { label: 'Lowercase', test: (password: string) => /[a-z]/.test(password) },
  { label: 'Number', test: (password: string) => /\d/.test(password) },
] as const;
