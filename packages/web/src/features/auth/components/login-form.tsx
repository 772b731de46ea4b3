import { useForm, useWatch } from 'react-hook-form';
import { useLocation } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { PendingButton } from '@/components/pending-button';
import { PasswordField } from '@/components/ui/form-field';
import { ApiError } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import { useLogin } from '../api/login';
import { checkLogin, signedUpEmailOf, type LoginFormValues } from '../login-rules';
import { EmailField } from './email-field';

function loginErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) {
    return 'Invalid email or password. Please try again.';
  }
  // Locked after repeated failures: the server says for how long.
  if (error instanceof ApiError && error.status === 429) return error.message;
  return 'Login failed. Please try again.';
}

/**
 * Email and password (docs/product.md, Public pages; Forms). On success the session is stored and the
 * route guard moves the user on to /dashboard (or the page they first asked for).
 */
export function LoginForm() {
  const { signIn } = useSession();
  const loginMutation = useLogin();
  // Just signed up: the new account's email is filled in, the password is next.
  const signedUpEmail = signedUpEmailOf(useLocation().state);
  const {
    register,
    handleSubmit,
    control,
    setError,
    clearErrors,
    formState: { errors, isSubmitting },
  } = useForm<LoginFormValues>({
    defaultValues: { email: signedUpEmail, password: '' },
  });
  const [email, password] = useWatch({ control, name: ['email', 'password'] });

  const onSubmit = handleSubmit(async (values) => {
    const check = checkLogin(values);
    if (!check.ok) {
      setError('root', { message: check.message });
      return;
    }
    try {
      signIn(await loginMutation.mutateAsync(check.input));
    } catch (error) {
      setError('root', { message: loginErrorMessage(error) });
    }
  });

  const submitDisabled = email === '' || password === '';

  return (
    // Any edit clears the message from the previous attempt.
    <form noValidate onSubmit={onSubmit} onChange={() => clearErrors()} className="grid gap-4">
      <EmailField {...register('email')} />
      <PasswordField
        label="Password"
        autoComplete="current-password"
        placeholder="Your password"
        autoFocus={signedUpEmail !== ''}
        {...register('password')}
      />
      {errors.root?.message ? <Alert variant="error">{errors.root.message}</Alert> : null}
      <PendingButton
        type="submit"
        size="lg"
        className="w-full"
        pending={isSubmitting}
        disabled={submitDisabled}
      >
        Sign In
      </PendingButton>
    </form>
  );
}
