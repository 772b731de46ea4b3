import { updateProfileInput, type User } from '@engram/shared';
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
import { useSession } from '@/lib/session';
import { useUpdateProfile } from '../api/update-profile';

export function ProfileForm({ user }: { user: User }) {
  const { replaceUser } = useSession();
  const updateProfileMutation = useUpdateProfile();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isDirty, isSubmitting },
  } = useForm({
    resolver: zodResolver(updateProfileInput),
    defaultValues: { firstName: user.firstName, lastName: user.lastName },
  });

  const onSubmit = handleSubmit(async (input) => {
    try {
      const updated = await updateProfileMutation.mutateAsync(input);
      replaceUser(updated);
      reset({ firstName: updated.firstName, lastName: updated.lastName });
      toast.success('Profile updated');
    } catch (error) {
      toast.error(
        error instanceof ApiError && error.body ? error.message : 'Failed to update profile',
      );
    }
  });

  return (
    <Card>
      <form noValidate onSubmit={onSubmit}>
        <CardHeader>
          <CardTitle>Profile</CardTitle>
          <CardDescription>Your name as it appears on API keys you create.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField
              label="First Name"
              autoComplete="given-name"
              error={errors.firstName?.message}
              {...register('firstName')}
            />
            <FormField
              label="Last Name"
              autoComplete="family-name"
              error={errors.lastName?.message}
              {...register('lastName')}
            />
          </div>
          <FormField
            label="Email Address"
            type="email"
            value={user.email}
            readOnly
            hint="Your email address is your sign-in name and cannot be changed."
          />
        </CardContent>
        <CardFooter className="justify-end">
          <Button type="submit" disabled={!isDirty || isSubmitting}>
            {isSubmitting ? <Spinner /> : null}
            Save Changes
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
