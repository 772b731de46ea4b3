import { expect, test } from '@playwright/test';
import { createAccount, openSignedIn, PASSWORD } from './support';

test.describe('Settings', () => {
  test('updates the profile', async ({ page, request }) => {
    const account = await createAccount(request, 'profile');
    await openSignedIn(page, account, '/settings');
    const save = page.getByRole('button', { name: 'Save Changes' });
    await expect(save).toBeDisabled();
    await page.getByLabel('First Name').fill('  ');
    await save.click();
    await expect(page.getByText('First name is required')).toBeVisible();
    await page.getByLabel('First Name').fill(' Augusta ');
    await save.click();
    await expect(page.getByText('Profile updated')).toBeVisible();
    await page.reload();
    await expect(page.getByLabel('First Name')).toHaveValue('Augusta');
  });

  test('changes the password', async ({ page, request }) => {
    const account = await createAccount(request, 'password');
    await openSignedIn(page, account, '/settings');
    const change = page.getByRole('button', { name: 'Change Password' });

    await page.getByLabel('Current Password').fill('not-my-password');
    await page.getByLabel('New Password', { exact: true }).fill('NewEngines1843');
    await page.getByLabel('Confirm New Password').fill('NewEngines1843');
    await change.click();
    await expect(page.getByText('Current password is incorrect')).toBeVisible();

    await page.getByLabel('Current Password').fill(PASSWORD);
    await page.getByLabel('Confirm New Password').fill('Different1843');
    await change.click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();

    await page.getByLabel('Confirm New Password').fill('NewEngines1843');
    await change.click();
    await expect(page.getByText('Password changed successfully')).toBeVisible();
    await expect(page.getByLabel('Current Password')).toHaveValue('');

    const login = await request.post('/auth/login', {
      data: { email: account.email, password: 'NewEngines1843' },
    });
    expect(login.status()).toBe(200);
  });
});
