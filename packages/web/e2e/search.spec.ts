import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { choose, createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/*
 * The Search screen (/search) against the real server's recall, in Chromium:
 * reached from the dashboard, answered as the person types, the question's
 * words marked, filtered by type and by time, driven by the keyboard.
 */

async function createEntity(
  request: APIRequestContext,
  account: Account,
  entity: {
    name: string;
    type: string;
    observations: (string | { content: string; validFrom?: string; validTo?: string })[];
  },
): Promise<{ id: string }> {
  const response = await request.post('/api/entities', {
    headers: { Authorization: `Bearer ${account.token}` },
    data: entity,
  });
  expect(response.status(), `POST /api/entities: ${await response.text()}`).toBe(201);
  return (await response.json()) as { id: string };
}

const MAYA_JOB = 'Maya started a new job at Northwind as a data engineer in March 2026';

async function seed(request: APIRequestContext, account: Account) {
  const maya = await createEntity(request, account, {
    name: 'Maya Chen',
    type: 'person',
    observations: [MAYA_JOB, 'Prefers green tea over coffee', 'Lives in Lisbon with two cats'],
  });
  const northwind = await createEntity(request, account, {
    name: 'Northwind',
    type: 'company',
    observations: [
      'Northwind hired Maya Chen to lead its new data pipeline job',
      'Makes routing software for delivery fleets',
    ],
  });
  await createEntity(request, account, {
    name: 'Atlas',
    type: 'project',
    observations: ['The Atlas project started in January 2025 to replace billing'],
  });
  await createEntity(request, account, {
    name: 'Tom Reyes',
    type: 'person',
    observations: ['Tom prefers morning meetings and short agendas'],
  });
  return { maya, northwind };
}

const results = (page: Page) => page.getByRole('list', { name: 'Results' }).getByRole('article');
const box = (page: Page) => page.getByRole('searchbox', { name: 'Ask a question' });

test.describe('Search (/search)', () => {
  test('ask from the dashboard, see the answer first with its words marked, filter, use the keyboard, open the entity', async ({
    page,
    request,
  }) => {
    test.setTimeout(60_000);
    const account = await createAccount(request, 'search');
    const { maya, northwind } = await seed(request, account);

    await openSignedIn(page, account, '/dashboard');
    await page.getByRole('link', { name: /Search Knowledge/ }).click();
    await expect(page).toHaveURL(/\/search$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Search' })).toBeVisible();
    await expect(box(page)).toBeFocused();
    await expect(page.getByRole('heading', { name: 'Ask your memory a question' })).toBeVisible();
    await saveScreenshot(page, 'search-empty-desktop');

    // ── a question in plain words ──────────────────────────────────────────
    const question = 'When did Maya start her new job?';
    await box(page).pressSequentially(question, { delay: 20 });
    await expect(page).toHaveURL(/\?q=When\+did\+Maya\+start\+her\+new\+job%3F$/);
    const first = results(page).first();
    await expect(first).toHaveAccessibleName(MAYA_JOB);
    await expect(first.getByRole('link', { name: 'Maya Chen' })).toHaveAttribute(
      'href',
      `/entities/${maya.id}`,
    );
    await expect(first.getByText('person', { exact: true })).toBeVisible();
    // The question's words, in the forms the observation uses; stop words never.
    await expect(first.locator('mark')).toHaveText(['Maya', 'started', 'new', 'job']);
    await expect(page.getByText(/^\d+ results?$/)).toBeVisible();
    await saveScreenshot(page, 'search-results-desktop');

    // ── filtered by type ───────────────────────────────────────────────────
    await choose(page, page, 'Entity type', /^Company/);
    await expect(page).toHaveURL(/&type=company$/);
    await expect(results(page).first()).toHaveAccessibleName(
      'Northwind hired Maya Chen to lead its new data pipeline job',
    );
    for (const card of await results(page).all()) {
      await expect(card.getByText('company', { exact: true })).toBeVisible();
    }
    await choose(page, page, 'Entity type', 'All Types');
    await expect(page).not.toHaveURL(/type=/);
    await expect(results(page).first()).toHaveAccessibleName(MAYA_JOB);

    // ── the keyboard, from the query box ───────────────────────────────────
    await box(page).focus();
    await page.keyboard.press('ArrowDown');
    await expect(results(page).first()).toHaveAttribute('data-active', 'true');
    await expect(box(page)).toHaveAttribute(
      'aria-activedescendant',
      (await results(page).first().getAttribute('id'))!,
    );
    const count = await results(page).count();
    if (count > 1) {
      await page.keyboard.press('ArrowDown');
      await expect(results(page).nth(1)).toHaveAttribute('data-active', 'true');
      await expect(results(page).first()).not.toHaveAttribute('data-active');
      await page.keyboard.press('ArrowUp');
    }
    await expect(results(page).first()).toHaveAttribute('data-active', 'true');
    await expect(box(page)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/entities/${maya.id}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Maya Chen' })).toBeVisible();

    // Back returns to the same question and answers.
    await page.goBack();
    await expect(box(page)).toHaveValue(question);
    await expect(results(page).first()).toHaveAccessibleName(MAYA_JOB);

    // Escape clears the question.
    await box(page).focus();
    await page.keyboard.press('Escape');
    await expect(box(page)).toHaveValue('');
    await expect(page.getByRole('heading', { name: 'Ask your memory a question' })).toBeVisible();
    await expect(page).toHaveURL(/\/search$/);

    // ── nothing answers ────────────────────────────────────────────────────
    await box(page).fill('zebra xylophone quokka');
    await expect(
      page.getByRole('heading', { name: 'Nothing in memory answers that' }),
    ).toBeVisible();
    await saveScreenshot(page, 'search-no-results-desktop');

    // An example question asks itself.
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'What does the user prefer?' }).click();
    await expect(box(page)).toHaveValue('What does the user prefer?');
    await expect(page).toHaveURL(/\?q=What\+does\+the\+user\+prefer%3F$/);
    await expect(results(page).first().locator('mark').first()).toHaveText(/^prefer/i);

    // The company's page opens from its name too.
    await box(page).fill('Northwind routing software');
    await results(page)
      .filter({ hasText: 'routing software' })
      .getByRole('link', { name: 'Northwind' })
      .click();
    await expect(page).toHaveURL(new RegExp(`/entities/${northwind.id}$`));
  });

  test('works at phone width', async ({ page, request }) => {
    const account = await createAccount(request, 'search-phone');
    await seed(request, account);
    await page.setViewportSize({ width: 375, height: 812 });
    await openSignedIn(page, account, '/search?q=What%20does%20Maya%20prefer%3F');
    const first = results(page).first();
    await expect(first).toHaveAccessibleName('Prefers green tea over coffee');
    await expect(first.locator('mark')).toHaveText(['Prefers']);
    // Nothing wider than the screen.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot(page, 'search-results-mobile');
  });
});

const PORTO = 'Lena moved to Porto to open a design studio';
const MADRID = 'Lena ran a pop-up design studio in Madrid';
const LESSONS = 'Lena takes Portuguese lessons at the design studio on weekends';

/** Lena's facts: one dated, one a span, one undated (noted today). */
async function seedDated(request: APIRequestContext, account: Account) {
  await createEntity(request, account, {
    name: 'Lena Ortiz',
    type: 'person',
    observations: [
      { content: PORTO, validFrom: '2024-05-10T00:00:00Z' },
      { content: MADRID, validFrom: '2025-09-01T00:00:00Z', validTo: '2025-12-31T00:00:00Z' },
      LESSONS,
    ],
  });
}

/** The question as the address holds it, whether the link spelled its spaces + or %20. */
const LENA_Q = String.raw`\?q=Lena(\+|%20)design(\+|%20)studio`;

const timeRange = (page: Page) => page.getByRole('combobox', { name: 'Time range' });
const card = (page: Page, text: string) => results(page).filter({ hasText: text });

test.describe('Search by time (/search?since=&until=)', () => {
  test('dates each answer, keeps to a past week or a custom range in the address, Back and a shared link included', async ({
    page,
    request,
  }) => {
    test.setTimeout(60_000);
    const account = await createAccount(request, 'search-time');
    await seedDated(request, account);
    await openSignedIn(page, account, '/search?q=Lena%20design%20studio');

    // ── each answer's date ─────────────────────────────────────────────────
    await expect(timeRange(page)).toHaveValue('any');
    await expect(card(page, PORTO)).toContainText('May 10, 2024');
    await expect(card(page, MADRID)).toContainText('Sep 1, 2025 – Dec 31, 2025');
    await expect(card(page, LESSONS)).toContainText(/noted \w{3} \d{1,2}, \d{4}$/);
    await expect(results(page)).toHaveCount(3);

    // ── the past week: only what was noted or held in it ───────────────────
    await timeRange(page).selectOption({ label: 'Past week' });
    await expect(page).toHaveURL(new RegExp(`${LENA_Q}&since=\\d{4}-\\d{2}-\\d{2}$`));
    await expect(results(page)).toHaveCount(1);
    await expect(results(page).first()).toHaveAccessibleName(LESSONS);

    // Back undoes the range.
    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`${LENA_Q}$`));
    await expect(timeRange(page)).toHaveValue('any');
    await expect(results(page)).toHaveCount(3);

    // ── a range of one's own ───────────────────────────────────────────────
    await timeRange(page).selectOption({ label: 'Custom range' });
    await page.getByLabel('From', { exact: true }).fill('2024-01-01');
    await page.getByLabel('To', { exact: true }).fill('2024-12-31');
    await expect(page).toHaveURL(/&since=2024-01-01&until=2024-12-31$/);
    await expect(results(page)).toHaveCount(1);
    await expect(results(page).first()).toHaveAccessibleName(PORTO);
    await saveScreenshot(page, 'search-time-custom-desktop');

    // A range that ends before it starts is said so, and not asked.
    await page.getByLabel('From', { exact: true }).fill('2025-01-01');
    await expect(page.getByRole('alert')).toContainText('The range ends before it starts');
    await expect(page).toHaveURL(/&since=2024-01-01&until=2024-12-31$/);
    await page.getByLabel('From', { exact: true }).fill('2024-01-01');
    await expect(page.getByRole('alert')).toBeHidden();

    // A shared link reopens the same range.
    await page.goto('/search?q=Lena%20design%20studio&since=2025-10-01&until=2025-10-31');
    await expect(timeRange(page)).toHaveValue('custom');
    await expect(page.getByLabel('From', { exact: true })).toHaveValue('2025-10-01');
    await expect(page.getByLabel('To', { exact: true })).toHaveValue('2025-10-31');
    await expect(results(page)).toHaveCount(1);
    await expect(results(page).first()).toHaveAccessibleName(MADRID);

    // Nothing in a range: offered any time.
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.getByLabel('To', { exact: true }).fill('2020-12-31');
    await expect(
      page.getByRole('heading', { name: 'Nothing in memory answers that' }),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Search any time' }).click();
    await expect(page).toHaveURL(new RegExp(`${LENA_Q}$`));
    await expect(results(page)).toHaveCount(3);
  });

  test('says, quietly, when the question’s own words set the range', async ({ page, request }) => {
    const account = await createAccount(request, 'search-time-words');
    await seedDated(request, account);
    await openSignedIn(page, account, '/search?q=Where%20did%20Lena%20move%20in%20May%202024%3F');
    await expect(results(page).first()).toHaveAccessibleName(PORTO);
    await expect(page.getByText(/\(from your question\)$/)).toHaveText(
      'Within May 1, 2024 – May 31, 2024 (from your question)',
    );
    await expect(timeRange(page)).toHaveValue('any');
    await saveScreenshot(page, 'search-time-question-desktop');
    await page.setViewportSize({ width: 375, height: 812 });
    await saveScreenshot(page, 'search-time-question-mobile');
  });

  test('fits a phone with a custom range open', async ({ page, request }) => {
    const account = await createAccount(request, 'search-time-phone');
    await seedDated(request, account);
    await page.setViewportSize({ width: 375, height: 812 });
    await openSignedIn(
      page,
      account,
      '/search?q=Lena%20design%20studio&since=2024-01-01&until=2025-12-31',
    );
    await expect(page.getByLabel('From', { exact: true })).toHaveValue('2024-01-01');
    await expect(card(page, MADRID)).toContainText('Sep 1, 2025 – Dec 31, 2025');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot(page, 'search-time-custom-mobile');
  });
});
