import { describe, expect, it } from 'vitest';
import { checkLogin } from './login-rules';

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
