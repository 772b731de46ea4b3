import type { User } from '@engram/shared';
import { zodResolver } from '@hookform/resolvers/zod';
import { Download, Trash2 } from 'lucide-react';
import { useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { toast } from 'sonner';
import { z } from 'zod';
import { PendingButton } from '@/components/pending-button';
import { FormField, PasswordField } from '@/components/ui/form-field';
import { ApiError, errorMessage } from '@/lib/api-client';
import { formFields } from '@/lib/form-fields';
import { useSession } from '@/lib/session';
import { useDeleteAccount } from '../api/delete-account';
import { useExportGraph } from '@/lib/export-graph';
import { FormCard } from './form-card';

const deleteAccountForm = z.object({
  password: z.string().min(1, 'Password is required'),
  confirmation: z.string(),
});

/** The typed confirmation: the signed-in email, ignoring case and surrounding spaces. */
const confirms = (typed: string, email: string) =>
  typed.trim().toLowerCase() === email.trim().toLowerCase();

/**
 * Deleting the account (DELETE /auth/me): what goes, the export to download
 * first, then the password and the email typed out before the button is
 * enabled. Afterwards the person is signed out on the landing page.
 */
export function DeleteAccountCard({ user }: { user: User }) {
  const { signOut } = useSession();
  const deleteAccount = useDeleteAccount();
  const exporting = useExportGraph();
  const titleId = useId();
  const {
    register,
    handleSubmit,
    setError,
    control,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(deleteAccountForm),
    defaultValues: { password: '', confirmation: '' },
  });
  const field = formFields(register, errors);
  const [password, confirmation] = useWatch({ control, name: ['password', 'confirmation'] });
  const ready = password.length > 0 && confirms(confirmation, user.email);

  function download() {
    exporting.mutate(undefined, {
      onSuccess: (name) => toast.success(`Export downloaded as ${name}`),
      onError: (error) =>
        toast.error(error instanceof ApiError ? error.message : 'Failed to export your data'),
    });
  }

  const onSubmit = handleSubmit(async ({ password: given, confirmation: typed }) => {
    if (!confirms(typed, user.email)) return;
    try {
      await deleteAccount.mutateAsync({ password: given });
    } catch (error) {
      const wrongPassword = error instanceof ApiError ? error.detailFor('password') : undefined;
      if (wrongPassword) {
        setError('password', { message: wrongPassword }, { shouldFocus: true });
        return;
      }
      toast.error(errorMessage(error, 'Failed to delete your account'));
      return;
    }
    toast.success('Your account was deleted');
    // The guard leaves for the landing page in the render the session ends.
    await signOut('/');
  });

  return (
    <FormCard
      role="region"
      aria-labelledby={titleId}
      className="border-destructive/40"
      title="Delete Account"
      titleProps={{ id: titleId, className: 'text-destructive' }}
      description="Permanently delete your account and everything stored in it."
      onSubmit={onSubmit}
      action={
        <PendingButton
          type="submit"
          variant="destructive"
          pending={isSubmitting}
          disabled={!ready}
          icon={<Trash2 aria-hidden />}
        >
          Delete Account
        </PendingButton>
      }
    >
      <p className="text-sm leading-6">
        Your profile, your whole knowledge graph (entities, observations, relations and their
        history), every API key and its usage, and your billing details are removed. A paid plan is
        cancelled at once, and agents and apps using your keys are disconnected. This cannot be
        undone.
      </p>
      <div className="flex flex-col gap-3 rounded-lg border border-border bg-muted/60 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="min-w-0">
          <p className="text-sm font-medium">Download your data first</p>
          <p className="text-xs text-muted-foreground">
            A JSON export of your whole graph, which Engram can import again.
          </p>
        </div>
        <PendingButton
          variant="outline"
          size="sm"
          className="self-start sm:self-auto"
          pending={exporting.isPending}
          icon={<Download aria-hidden />}
          onClick={download}
        >
          Download Export
        </PendingButton>
      </div>
      {/* items-start: the confirmation's hint must not stretch the password's cell. */}
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <PasswordField label="Password" autoComplete="current-password" {...field('password')} />
        <FormField
          label="Type your email to confirm"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          hint={`Enter ${user.email}`}
          {...register('confirmation')}
        />
      </div>
    </FormCard>
  );
}
