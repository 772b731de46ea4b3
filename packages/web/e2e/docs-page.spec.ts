import { expect, test } from '@playwright/test';

// The API reference (Swagger UI at /docs) under its Content-Security-Policy:
// nothing it draws may be blocked, so the console stays clean.
test('the API reference loads without a Content-Security-Policy violation', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} (${event.blockedURI})`);
    });
  });

  await page.goto('/docs');
  // Swagger UI draws the whole OpenAPI document first: on a busy machine, past 10 s.
  await expect(page.getByRole('heading', { name: /Engram API/ })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText('/auth/register', { exact: true })).toBeVisible();
  // The top bar (where the blocked logo style was) is drawn by then too.
  await expect(page.locator('.topbar')).toBeVisible();
  expect(errors).toEqual([]);
});
