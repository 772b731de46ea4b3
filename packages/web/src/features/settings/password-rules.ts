import { changePasswordInput } from '@engram/shared';
import { z } from 'zod';

/** The shared change-password rules plus a confirmation typed twice. */
export const changePasswordForm = changePasswordInput
  .extend({ confirmPassword: z.string() })
  .refine((values) => values.newPassword === values.confirmPassword, {
    message: 'Passwords do not match',
    path: ['confirmPassword'],
  });

export type ChangePasswordFormValues = z.input<typeof changePasswordForm>;
