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
