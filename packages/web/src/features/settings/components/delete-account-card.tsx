import type { User } from '@engram/shared';
import { zodResolver } from '@hookform/resolvers/zod';
import { Download, Trash2 } from 'lucide-react';
import { useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { toast } from 'sonner';
import { z } from 'zod';
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
import { useDeleteAccount } from '../api/delete-account';
import { useExportGraph } from '@/lib/export-graph';

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
      toast.error(
        error instanceof ApiError && error.body ? error.message : 'Failed to delete your account',
      );
      return;
    }
    toast.success('Your account was deleted');
    // The guard leaves for the landing page in the render the session ends.
    await signOut('/');
  });

  return (
    <Card role="region" aria-labelledby={titleId} className="border-destructive/40">
      <form noValidate onSubmit={onSubmit}>
        <CardHeader>
          <CardTitle id={titleId} className="text-destructive">
            Delete Account
          </CardTitle>
          <CardDescription>
            Permanently delete your account and everything stored in it.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <p className="text-sm leading-6">
            Your profile, your whole knowledge graph (entities, observations, relations and their
            history), every API key and its usage, and your billing details are removed. A paid plan
            is cancelled at once, and agents and apps using your keys are disconnected. This cannot
            be undone.
          </p>
          <div className="flex flex-col gap-3 rounded-lg border border-border bg-muted/60 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              <p className="text-sm font-medium">Download your data first</p>
              <p className="text-xs text-muted-foreground">
                A JSON export of your whole graph, which Engram can import again.
              </p>
            </div>
            <Button
              variant="outline"
              size="sm"
              className="self-start sm:self-auto"
              disabled={exporting.isPending}
              onClick={download}
            >
              {exporting.isPending ? <Spinner /> : <Download aria-hidden />}
              Download Export
            </Button>
          </div>
          {/* items-start: the confirmation's hint must not stretch the password's cell. */}
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <FormField
              label="Password"
              type="password"
              autoComplete="current-password"
              error={errors.password?.message}
              {...register('password')}
            />
            <FormField
              label="Type your email to confirm"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              hint={`Enter ${user.email}`}
              {...register('confirmation')}
            />
          </div>
        </CardContent>
        <CardFooter className="justify-end">
          <Button type="submit" variant="destructive" disabled={!ready || isSubmitting}>
            {isSubmitting ? <Spinner /> : <Trash2 aria-hidden />}
            Delete Account
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
