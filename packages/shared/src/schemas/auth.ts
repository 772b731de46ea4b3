import { z } from 'zod';
import { text } from './common.js';

export const PASSWORD_MIN_LENGTH = 8;

export const emailField = text()
  .trim()
  .toLowerCase()
  .min(1, 'Email address is required')
  .max(254)
  .pipe(z.email('Please enter a valid email address'));

const nameField = (label: string) =>
  text().trim().min(1, `${label} is required`).max(100, `${label} is too long`);

export const passwordField = z
  .string()
  .min(1, 'Password is required')
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters long`)
  .max(256, 'Password must be at most 256 characters long');

export const registerInput = z.object({
  email: emailField,
  password: passwordField,
  firstName: nameField('First name'),
  lastName: nameField('Last name'),
});
export type RegisterInput = z.infer<typeof registerInput>;

export const loginInput = z.object({
  email: emailField,
  password: z.string().min(1, 'Password is required').max(256),
});
export type LoginInput = z.infer<typeof loginInput>;

export const updateProfileInput = z.object({
  firstName: nameField('First name'),
  lastName: nameField('Last name'),
});
export type UpdateProfileInput = z.infer<typeof updateProfileInput>;

export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, 'Current password is required').max(256),
  newPassword: passwordField,
});
export type ChangePasswordInput = z.infer<typeof changePasswordInput>;

/** DELETE /auth/me: the password again, so a session left open cannot delete the account. */
export const deleteAccountInput = z.object({
  password: z.string().min(1, 'Password is required').max(256),
});
export type DeleteAccountInput = z.infer<typeof deleteAccountInput>;

export const user = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  /** The user's personal API key (docs/product.md, Shapes); null until one exists. */
  apiKey: z.string().nullable(),
});
export type User = z.infer<typeof user>;

export const authResponse = z.object({
  token: z.string(),
  user,
});
export type AuthResponse = z.infer<typeof authResponse>;
