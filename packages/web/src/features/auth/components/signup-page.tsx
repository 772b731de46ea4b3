import { Link, useSearchParams } from 'react-router';
import { selectedPaidPlan } from '../selected-plan';
import { AuthLayout } from './auth-layout';
import { SelectedPlanBanner } from './selected-plan-banner';
import { SignupForm } from './signup-form';

export function SignupPage() {
  const [searchParams] = useSearchParams();
  const selection = selectedPaidPlan(searchParams);
  return (
    <AuthLayout
      title="Create your account"
      description="Give your AI agents a memory that lasts"
      footer={
        <>
          Already have an account?{' '}
          <Link to="/login" className="font-medium text-primary hover:underline">
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
