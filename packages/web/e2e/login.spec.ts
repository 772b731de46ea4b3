import { expect, test } from '@playwright/test';
import { createAccount, storedToken } from './support';

test.describe('Login', () => {
  test('rejects a wrong password, then signs in', async ({ page, request }) => {
    const account = await createAccount(request, 'login');
    await page.goto('/login');
    const signIn = page.getByRole('button', { name: 'Sign In' });
    await expect(signIn).toBeDisabled();

    await page.getByLabel('Email Address').fill(account.email);
    await expect(signIn).toBeDisabled();
    await page.getByLabel('Password').fill('wrong-password');
    await signIn.click();
    await expect(page.getByText('Invalid email or password. Please try again.')).toBeVisible();
    await expect(page).toHaveURL('/login');

    await page.getByLabel('Password').fill(account.password);
    await expect(page.getByText('Invalid email or password. Please try again.')).toHaveCount(0);
    await signIn.click();
    await expect(page).toHaveURL('/dashboard');
    expect(await storedToken(page)).not.toBeNull();
  });

  test("asks for both fields: 'Please fill in all fields'", async ({ page }) => {
    await page.goto('/login');
    await page.getByLabel('Email Address').fill('   ');
    await page.getByLabel('Password').fill('secret');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Please fill in all fields')).toBeVisible();
  });

  test('links to sign-up and home', async ({ page }) => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Sign up' }).click();
    await expect(page).toHaveURL('/signup');
    await page.getByRole('link', { name: 'Back to home' }).click();
    await expect(page).toHaveURL('/');
  });
});
