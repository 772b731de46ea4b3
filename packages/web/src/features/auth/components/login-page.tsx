import { Link, useLocation } from 'react-router';
import { AuthLayout } from './auth-layout';
import { ConnectingAppNote, consentUidOf } from './connecting-app-note';
import { LoginForm } from './login-form';

export function LoginPage() {
  // Where the person was headed (GuestOnly's `from`) survives a detour through sign-up.
  const { state } = useLocation();
  const consentUid = consentUidOf(state);
  return (
    <AuthLayout
      title="Welcome back"
      description="Sign in to your Engram account"
      footer={
        <>
          Don’t have an account?{' '}
          <Link
            to="/signup"
            state={state as unknown}
            className="font-medium text-primary hover:underline"
          >
            Sign up
          </Link>
        </>
      }
    >
      {consentUid && <ConnectingAppNote uid={consentUid} />}
      <LoginForm />
    </AuthLayout>
  );
}
