import { Link, useLocation, useSearchParams } from 'react-router';
import { selectedPaidPlan } from '../selected-plan';
import { AuthLayout } from './auth-layout';
import { SelectedPlanBanner } from './selected-plan-banner';
import { SignupForm } from './signup-form';

export function SignupPage() {
  const [searchParams] = useSearchParams();
  const selection = selectedPaidPlan(searchParams);
  // Where the person was headed (GuestOnly's `from`, e.g. an invitation) is kept for sign-in.
  const { state } = useLocation();
  return (
    <AuthLayout
      title="Create your account"
      description="Give your AI agents a memory that lasts"
      footer={
        <>
          Already have an account?{' '}
          <Link
            to="/login"
            state={state as unknown}
            className="font-medium text-primary hover:underline"
          >
            Sign in
          </Link>
        </>
      }
    >
      <div className="grid gap-5">
        {selection ? <SelectedPlanBanner selection={selection} /> : null}
        <SignupForm selection={selection} />
      </div>
    </AuthLayout>
  );
}
