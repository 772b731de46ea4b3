import type { AuthResponse } from '@engram/shared';
import { useEffect, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useLocation, useNavigate } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { PendingButton } from '@/components/pending-button';
import { FormField, PasswordField } from '@/components/ui/form-field';
import { ApiError } from '@/lib/api-client';
import { formFields } from '@/lib/form-fields';
import { storeAuthToken } from '@/lib/auth-token';
import { logout, useSession } from '@/lib/session';
import { useRegister } from '../api/register';
import { useStartCheckout } from '@/lib/api/checkout';
import type { SelectedPlan } from '../selected-plan';
import { allSignupFieldsFilled, checkSignup, type SignupFormValues } from '../signup-rules';
import { withSignedUpEmail } from '../login-rules';
import { EmailField } from './email-field';
import { PasswordChecklist } from './password-checklist';

/** The pause before leaving the page after sign-up (docs/product.md, Numbers). */
export const SIGNUP_REDIRECT_DELAY_MS = 2000;

/** What happened after the account was created; drives the message and the delayed redirect. */
type Outcome =
  | { kind: 'created'; email: string }
  | { kind: 'redirecting-to-checkout'; paymentPage: boolean }
  | { kind: 'checkout-failed'; auth: AuthResponse; reason: string | null };

function registrationErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.isUnexpectedResponse) return 'Failed to create account. Please try again.';
    if (error.body) return error.details[0]?.message ?? error.body.error;
  }
  return 'Registration failed. Please try again.';
}

function checkoutUrls(selection: SelectedPlan) {
  const origin = window.location.origin;
  const query = new URLSearchParams({ plan: selection.tierId, billing: selection.billing });
  return {
    successUrl: `${origin}/dashboard?payment=success`,
    cancelUrl: `${origin}/signup?${query.toString()}&payment=cancelled`,
  };
}

const EMPTY_FORM: SignupFormValues = {
  firstName: '',
  lastName: '',
  email: '',
  password: '',
  confirmPassword: '',
};

export function SignupForm({ selection }: { selection: SelectedPlan | null }) {
  const navigate = useNavigate();
  // Where the person was headed (GuestOnly's `from`): the sign-in page after this goes there.
  const returnState = useLocation().state as unknown;
  const { signIn } = useSession();
  const registerMutation = useRegister();
  const checkoutMutation = useStartCheckout();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const {
    register,
    handleSubmit,
    control,
    setError,
    clearErrors,
    formState: { errors, isSubmitting },
  } = useForm<SignupFormValues>({ defaultValues: EMPTY_FORM });
  const field = formFields(register, errors);
  const values = useWatch({ control });

  // After sign-up the page waits 2 s, then moves on (docs/product.md, States).
  useEffect(() => {
    if (outcome === null || outcome.kind === 'redirecting-to-checkout') return;
    const timer = window.setTimeout(() => {
      if (outcome.kind === 'created') {
        // The sign-in page starts with the new account's email filled in.
        void navigate('/login', { state: withSignedUpEmail(returnState, outcome.email) });
      } else {
        // The account exists but billing could not start: continue signed in.
        signIn(outcome.auth);
        void navigate('/dashboard');
      }
    }, SIGNUP_REDIRECT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [outcome, navigate, signIn, returnState]);

  async function continueToCheckout(auth: AuthResponse, paid: SelectedPlan) {
    // Checkout needs the new session; the session state itself waits, so the
    // guest-only guard does not pull the user to /dashboard mid-redirect.
    storeAuthToken(auth.token);
    const urls = checkoutUrls(paid);
    try {
      const url = await checkoutMutation.mutateAsync({ priceId: paid.priceId, ...urls });
      // Without a payment provider the server takes the plan and answers the success address itself.
      setOutcome({ kind: 'redirecting-to-checkout', paymentPage: url !== urls.successUrl });
      window.location.assign(url);
    } catch (error) {
      // The server's reason (e.g. plans set by the operator) says why no plan was taken.
      const reason = error instanceof ApiError ? (error.body?.error ?? null) : null;
      setOutcome({ kind: 'checkout-failed', auth, reason });
    }
  }

  const onSubmit = handleSubmit(async (formValues) => {
    const check = checkSignup(formValues);
    if (!check.ok) {
      setError(check.field, { message: check.message }, { shouldFocus: true });
      return;
    }
    let auth: AuthResponse;
    try {
      auth = await registerMutation.mutateAsync(check.input);
    } catch (error) {
      setError('root', { message: registrationErrorMessage(error) });
      return;
    }
    if (selection) {
      await continueToCheckout(auth, selection);
    } else {
      // The free path signs in on the login page (docs/product.md, States), so this session is not kept.
      void logout(auth.token).catch(() => undefined);
      setOutcome({ kind: 'created', email: check.input.email });
    }
  });

  const done = outcome !== null;
  const submitDisabled = !allSignupFieldsFilled(values) || done;

  return (
    <form
      noValidate
      onSubmit={onSubmit}
      onChange={() => clearErrors()}
      className="grid gap-4"
      aria-busy={isSubmitting}
    >
      <fieldset disabled={done} className="grid gap-4">
        <div className="grid grid-cols-2 gap-3">
          <FormField label="First Name" autoComplete="given-name" {...field('firstName')} />
          <FormField label="Last Name" autoComplete="family-name" {...field('lastName')} />
        </div>
        <EmailField {...field('email')} />
        <div className="grid gap-2">
          <PasswordField label="Password" autoComplete="new-password" {...field('password')} />
          <PasswordChecklist password={values.password ?? ''} />
        </div>
        <PasswordField
          label="Confirm Password"
          autoComplete="new-password"
          {...field('confirmPassword')}
        />
      </fieldset>

      {errors.root?.message ? <Alert variant="error">{errors.root.message}</Alert> : null}
      <OutcomeNotice outcome={outcome} />

      <PendingButton
        type="submit"
        size="lg"
        className="w-full"
        pending={isSubmitting}
        disabled={submitDisabled}
      >
        {selection ? `Create Account & Subscribe to ${selection.plan.name}` : 'Create Account'}
      </PendingButton>
    </form>
  );
}

function OutcomeNotice({ outcome }: { outcome: Outcome | null }) {
  switch (outcome?.kind) {
    case 'created':
      return <Alert variant="success">Account created successfully! Redirecting to login...</Alert>;
    case 'redirecting-to-checkout':
      return (
        <Alert variant="info">
          {outcome.paymentPage
            ? 'Account created. Taking you to billing...'
            : 'Account created. Taking you to your dashboard...'}
        </Alert>
      );
    case 'checkout-failed':
      return (
        <Alert variant="info">
          {outcome.reason
            ? `Account created on the Free plan: ${outcome.reason} Taking you to your dashboard...`
            : 'Account created, but billing could not be started. Taking you to your dashboard...'}
        </Alert>
      );
    default:
      return null;
  }
}
