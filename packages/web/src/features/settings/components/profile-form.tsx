import { updateProfileInput, type User } from '@engram/shared';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { toast } from 'sonner';
import { PendingButton } from '@/components/pending-button';
import { FormField } from '@/components/ui/form-field';
import { errorMessage } from '@/lib/api-client';
import { formFields } from '@/lib/form-fields';
import { useSession } from '@/lib/session';
import { useUpdateProfile } from '../api/update-profile';
import { FormCard } from './form-card';

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
  const field = formFields(register, errors);

  const onSubmit = handleSubmit(async (input) => {
    try {
      const updated = await updateProfileMutation.mutateAsync(input);
      replaceUser(updated);
      reset({ firstName: updated.firstName, lastName: updated.lastName });
      toast.success('Profile updated');
    } catch (error) {
      toast.error(errorMessage(error, 'Failed to update profile'));
    }
  });

  return (
    <FormCard
      title="Profile"
      description="Your name as it appears on API keys you create."
      onSubmit={onSubmit}
      action={
        <PendingButton type="submit" pending={isSubmitting} disabled={!isDirty}>
          Save Changes
        </PendingButton>
      }
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField label="First Name" autoComplete="given-name" {...field('firstName')} />
        <FormField label="Last Name" autoComplete="family-name" {...field('lastName')} />
      </div>
      <FormField
        label="Email Address"
        type="email"
        value={user.email}
        readOnly
        hint="Your email address is your sign-in name and cannot be changed."
      />
    </FormCard>
  );
}
