import { expect, test } from '@playwright/test';
import { createAccount, openSignedIn, PASSWORD, storedToken } from './support';

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

  test('deletes the account after the export, the password and the typed email', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'delete');
    await request.post('/api/entities', {
      headers: { authorization: `Bearer ${account.token}` },
      data: { name: 'Analytical Engine', type: 'concept', metadata: {}, observations: [] },
    });
    await openSignedIn(page, account, '/settings');
    const section = page.getByRole('region', { name: 'Delete Account' });
    await expect(section).toBeVisible();
    const remove = section.getByRole('button', { name: 'Delete Account' });
    await expect(remove).toBeDisabled();

    // The export comes first: a download of the whole graph.
    const downloading = page.waitForEvent('download');
    await section.getByRole('button', { name: 'Download Export' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    const exported = await download.createReadStream();
    let text = '';
    for await (const chunk of exported) text += String(chunk);
    expect(text).toContain('Analytical Engine');

    // The button waits for the password and the exact email.
    await section.getByLabel('Password').fill('not-my-password');
    await expect(remove).toBeDisabled();
    await section.getByLabel('Type your email to confirm').fill('someone@else.example');
    await expect(remove).toBeDisabled();
    await section.getByLabel('Type your email to confirm').fill(account.email.toUpperCase());
    await expect(remove).toBeEnabled();
    await remove.click();
    await expect(section.getByText('Password is incorrect')).toBeVisible();
    expect(await storedToken(page)).toBe(account.token);

    await section.getByLabel('Password').fill(PASSWORD);
    await remove.click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByText('Your account was deleted')).toBeVisible();
    expect(await storedToken(page)).toBeNull();

    // Gone: the old session and password no longer work, and the email can sign up again.
    const me = await request.get('/auth/me', {
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(me.status()).toBe(401);
    const login = await request.post('/auth/login', {
      data: { email: account.email, password: PASSWORD },
    });
    expect(login.status()).toBe(401);
    const again = await request.post('/auth/register', {
      data: { email: account.email, password: PASSWORD, firstName: 'Ada', lastName: 'Again' },
    });
    expect(again.status()).toBe(201);
  });
});
