import { describe, expect, it } from 'vitest';
import {
  allSignupFieldsFilled,
  checkSignup,
  PASSWORD_HINTS,
  type SignupFormValues,
} from './signup-rules';

const VALID: SignupFormValues = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  password: 'Engines1843',
  confirmPassword: 'Engines1843',
};

describe('checkSignup', () => {
  it('reports each rule in the documented order', () => {
    // Each step fixes the previous problem, so the next rule is the first one broken.
    const steps: [Partial<SignupFormValues>, string, keyof SignupFormValues][] = [
      [
        { firstName: '   ', lastName: '', email: '', password: '', confirmPassword: 'x' },
        'First name is required',
        'firstName',
      ],
      [
        { lastName: ' ', email: '', password: '', confirmPassword: 'x' },
        'Last name is required',
        'lastName',
      ],
      [{ email: '  ', password: '', confirmPassword: 'x' }, 'Email address is required', 'email'],
      [
        { email: 'ada-at-example', password: '', confirmPassword: 'x' },
        'Please enter a valid email address',
        'email',
      ],
      [{ password: '', confirmPassword: 'x' }, 'Password is required', 'password'],
      [
        { password: 'Short1', confirmPassword: 'x' },
        'Password must be at least 8 characters long',
        'password',
      ],
      [{ confirmPassword: 'Engines1844' }, 'Passwords do not match', 'confirmPassword'],
    ];
    for (const [overrides, message, field] of steps) {
      expect(checkSignup({ ...VALID, ...overrides })).toEqual({ ok: false, field, message });
    }
  });

  it('trims names, trims and lower-cases the email, and leaves the password alone', () => {
    const check = checkSignup({
      firstName: '  Ada ',
      lastName: ' Lovelace  ',
      email: '  Ada.Lovelace@Example.COM ',
      password: ' Engines1843 ',
      confirmPassword: ' Engines1843 ',
    });
    expect(check).toEqual({
      ok: true,
      input: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada.lovelace@example.com',
        password: ' Engines1843 ',
      },
    });
  });

  it('does not enforce the uppercase, lowercase and number hints', () => {
    const check = checkSignup({ ...VALID, password: 'aaaaaaaa', confirmPassword: 'aaaaaaaa' });
    expect(check.ok).toBe(true);
  });
});

describe('allSignupFieldsFilled', () => {
  it('is false until all five fields hold something', () => {
    expect(allSignupFieldsFilled({ ...VALID, confirmPassword: '' })).toBe(false);
    expect(allSignupFieldsFilled({ ...VALID, firstName: '' })).toBe(false);
    expect(allSignupFieldsFilled(VALID)).toBe(true);
    // Whitespace counts as filled: the rules, not the button, reject it.
    expect(allSignupFieldsFilled({ ...VALID, firstName: ' ' })).toBe(true);
  });
});

describe('PASSWORD_HINTS', () => {
  it('lists 8+ characters, uppercase, lowercase and number', () => {
    const met = (password: string) =>
      PASSWORD_HINTS.filter((hint) => hint.test(password)).map((hint) => hint.label);
    expect(PASSWORD_HINTS.map((hint) => hint.label)).toEqual([
      '8+ characters',
      'Uppercase',
      'Lowercase',
      'Number',
    ]);
    expect(met('')).toEqual([]);
    expect(met('abc')).toEqual(['Lowercase']);
    expect(met('Abcdefg1')).toEqual(['8+ characters', 'Uppercase', 'Lowercase', 'Number']);
  });
});
