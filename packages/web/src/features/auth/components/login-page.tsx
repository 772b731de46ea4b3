import { Link } from 'react-router';
import { AuthLayout } from './auth-layout';
import { LoginForm } from './login-form';

export function LoginPage() {
  return (
    <AuthLayout
      title="Welcome back"
      description="Sign in to your Engram account"
      footer={
        <>
          Don’t have an account?{' '}
          <Link to="/signup" className="font-medium text-primary hover:underline">
            Sign up
          </Link>
        </>
      }
    >
      <LoginForm />
    </AuthLayout>
  );
}
