import { loginInput, type LoginInput } from '@engram/shared';

export interface LoginFormValues {
  email: string;
  password: string;
}

export type LoginCheck = { ok: true; input: LoginInput } | { ok: false; message: string };

/**
 * Both fields required (docs/product.md, Forms) ('Please fill in all fields'). A malformed
 * email is caught here too, with the sign-up form's wording, rather than
 * being sent and reported as a generic failure.
 */
export function checkLogin(values: LoginFormValues): LoginCheck {
  if (values.email.trim() === '' || values.password === '') {
    return { ok: false, message: 'Please fill in all fields' };
  }
  const result = loginInput.safeParse(values);
  if (!result.success) {
    return { ok: false, message: result.error.issues[0]?.message ?? 'Please fill in all fields' };
  }
  return { ok: true, input: result.data };
}

/**
 * The sign-up page sends the new account's email on to the sign-in page
 * (docs/product.md, States) in the navigation's state, beside where the
 * person was headed (`from`).
 */
export function withSignedUpEmail(state: unknown, email: string): Record<string, unknown> {
  const base =
    typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : {};
  return { ...base, signedUpEmail: email };
}

/** The email a sign-up just used, if the sign-in page was reached from it. */
export function signedUpEmailOf(state: unknown): string {
  if (typeof state !== 'object' || state === null) return '';
  const email = (state as Record<string, unknown>).signedUpEmail;
  return typeof email === 'string' ? email : '';
}
