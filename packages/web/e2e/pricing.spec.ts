import { expect, test, type Page } from '@playwright/test';

const card = (page: Page, name: string) => page.getByRole('article', { name });

test.describe('Pricing page', () => {
  test('lists the four plans monthly and links Free to plain sign-up', async ({ page }) => {
    await page.goto('/pricing');
    await expect(page.getByRole('article')).toHaveCount(5); // four plans + Enterprise
    await expect(card(page, 'Free')).toContainText('$0');
    await expect(card(page, 'Starter')).toContainText('$10');
    await expect(card(page, 'Starter')).toContainText('Most Popular');
    await expect(card(page, 'Pro')).toContainText('$20');
    await expect(card(page, 'Power User')).toContainText('$60');
    await expect(card(page, 'Free').getByRole('link')).toHaveAttribute('href', '/signup');
    await expect(card(page, 'Starter').getByRole('link')).toHaveAttribute(
      'href',
      '/signup?plan=starter&billing=monthly',
    );
    await expect(card(page, 'Power User').getByRole('link')).toHaveAttribute(
      'href',
      '/signup?plan=team&billing=monthly',
    );
  });

  test('annual billing shows per-month prices, savings and annual links', async ({ page }) => {
    await page.goto('/pricing');
    await expect(page.getByText('Save 17%')).toBeVisible();
    await page.getByRole('radio', { name: /Annual/ }).click();
    await expect(card(page, 'Starter')).toContainText('$8.33');
    await expect(card(page, 'Starter')).toContainText('Billed $100 annually');
    await expect(card(page, 'Pro')).toContainText('$16.67');
    await expect(card(page, 'Power User')).toContainText('$50');
    await expect(card(page, 'Free')).toContainText('$0');
    await expect(card(page, 'Pro').getByRole('link')).toHaveAttribute(
      'href',
      '/signup?plan=pro&billing=annual',
    );

    await card(page, 'Pro').getByRole('link').click();
    await expect(page).toHaveURL('/signup?plan=pro&billing=annual');
    await expect(page.getByText('Selected Plan')).toBeVisible();
    await expect(page.getByText("You'll be taken to billing after signup")).toBeVisible();
    await expect(
      page.getByRole('button', { name: 'Create Account & Subscribe to Pro' }),
    ).toBeVisible();
  });

  test('offers Enterprise sales, an inert demo button and the FAQ', async ({ page }) => {
    await page.goto('/pricing');
    const enterprise = card(page, 'Enterprise');
    await expect(enterprise.getByRole('link', { name: 'Contact Sales' })).toHaveAttribute(
      'href',
      /^mailto:/,
    );
    await enterprise.getByRole('button', { name: 'Schedule Demo' }).click();
    await expect(page).toHaveURL('/pricing');

    const faq = page.getByRole('region', { name: 'Frequently asked questions' });
    await expect(faq).toContainText('14-day free trial');
    await expect(faq).toContainText('credit card');
    await expect(faq).toContainText('Upgrades take effect immediately');
    await expect(faq).toContainText('next billing cycle');
    await expect(faq).toContainText('temporarily rate limited');
  });
});
