import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useChangePassword } from '../api/change-password';
import { changePasswordForm, type ChangePasswordFormValues } from '../password-rules';

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
      toast.error(
        error instanceof ApiError && error.body ? error.message : 'Failed to change password',
      );
    }
  });

  return (
    <Card>
      <form noValidate onSubmit={onSubmit}>
        <CardHeader>
          <CardTitle>Password</CardTitle>
          <CardDescription>Choose a new password of at least 8 characters.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <FormField
            label="Current Password"
            type="password"
            autoComplete="current-password"
            error={errors.currentPassword?.message}
            {...register('currentPassword')}
          />
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField
              label="New Password"
              type="password"
              autoComplete="new-password"
              error={errors.newPassword?.message}
              {...register('newPassword')}
            />
            <FormField
              label="Confirm New Password"
              type="password"
              autoComplete="new-password"
              error={errors.confirmPassword?.message}
              {...register('confirmPassword')}
            />
          </div>
        </CardContent>
        <CardFooter className="justify-end">
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? <Spinner /> : null}
            Change Password
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
