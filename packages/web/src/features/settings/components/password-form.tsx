import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { toast } from 'sonner';
import { PendingButton } from '@/components/pending-button';
import { PasswordField } from '@/components/ui/form-field';
import { ApiError, errorMessage } from '@/lib/api-client';
import { formFields } from '@/lib/form-fields';
import { useChangePassword } from '../api/change-password';
import { changePasswordForm, type ChangePasswordFormValues } from '../password-rules';
import { FormCard } from './form-card';

const EMPTY: ChangePasswordFormValues = {
  currentPassword: '',
  newPassword: '',
  confirmPassword: '',
};

export function PasswordForm() {
  const changePasswordMutation = useChangePassword();
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(changePasswordForm), defaultValues: EMPTY });
  const field = formFields(register, errors);

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    try {
      await changePasswordMutation.mutateAsync({ currentPassword, newPassword });
      reset(EMPTY);
      toast.success('Password changed successfully');
    } catch (error) {
      const wrongCurrent =
        error instanceof ApiError ? error.detailFor('currentPassword') : undefined;
      if (wrongCurrent) {
        setError('currentPassword', { message: wrongCurrent }, { shouldFocus: true });
        return;
      }
      toast.error(errorMessage(error, 'Failed to change password'));
    }
  });

  return (
    <FormCard
      title="Password"
      description="Choose a new password of at least 8 characters."
      onSubmit={onSubmit}
      action={
        <PendingButton type="submit" pending={isSubmitting}>
          Change Password
        </PendingButton>
      }
    >
      <PasswordField
        label="Current Password"
        autoComplete="current-password"
        {...field('currentPassword')}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <PasswordField label="New Password" autoComplete="new-password" {...field('newPassword')} />
        <PasswordField
          label="Confirm New Password"
          autoComplete="new-password"
          {...field('confirmPassword')}
        />
      </div>
    </FormCard>
  );
}
