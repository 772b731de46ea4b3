import { describe, expect, it } from 'vitest';
import { checkLogin, signedUpEmailOf, withSignedUpEmail } from './login-rules';

describe('checkLogin', () => {
  it('asks for both fields', () => {
    const missing = { ok: false, message: 'Please fill in all fields' };
    expect(checkLogin({ email: '', password: 'secret' })).toEqual(missing);
    expect(checkLogin({ email: 'ada@example.com', password: '' })).toEqual(missing);
    expect(checkLogin({ email: '   ', password: 'secret' })).toEqual(missing);
  });

  it('rejects a malformed email before calling the server', () => {
    expect(checkLogin({ email: 'ada', password: 'secret' })).toEqual({
      ok: false,
      message: 'Please enter a valid email address',
    });
  });

  it('sends a trimmed, lower-cased email', () => {
    expect(checkLogin({ email: ' Ada@Example.com ', password: 'secret' })).toEqual({
      ok: true,
      input: { email: 'ada@example.com', password: 'secret' },
    });
  });
});

describe('the email a sign-up hands on to sign-in', () => {
  it('rides beside where the person was headed', () => {
    const from = { pathname: '/graph' };
    const state = withSignedUpEmail({ from }, 'ada@example.com');
    expect(state).toEqual({ from, signedUpEmail: 'ada@example.com' });
    expect(signedUpEmailOf(state)).toBe('ada@example.com');
  });

  it('is empty when the sign-in page was reached otherwise', () => {
    expect(withSignedUpEmail(null, 'a@b.co')).toEqual({ signedUpEmail: 'a@b.co' });
    expect(signedUpEmailOf(null)).toBe('');
    expect(signedUpEmailOf({ from: '/x' })).toBe('');
    expect(signedUpEmailOf({ signedUpEmail: 42 })).toBe('');
  });
});
