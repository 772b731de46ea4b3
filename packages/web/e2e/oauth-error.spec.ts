import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { saveScreenshot } from './support';

/**
 * Engram's OAuth error page (docs/connect.md; issue 56 item 9, issue 58
 * item 4): an authorization request that is not valid stays on Engram and
 * says what went wrong in words, never bouncing the browser to the client's
 * redirect URI (here a phishing site's).
 */

const PHISHING = 'https://evil.example/landing';

async function phishingAuthorizeUrl(request: APIRequestContext) {
  const discovery = await request.get('/.well-known/oauth-authorization-server');
  const metadata = (await discovery.json()) as {
    issuer: string;
    authorization_endpoint: string;
    registration_endpoint: string;
  };
  const registered = await request.post(metadata.registration_endpoint, {
    data: {
      client_name: 'Totally Engram',
      redirect_uris: [PHISHING],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  });
  expect(registered.status()).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const url = new URL(metadata.authorization_endpoint);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', PHISHING);
  url.searchParams.set('scope', 'memory:read');
  url.searchParams.set('resource', `${metadata.issuer}/mcp`);
  // No PKCE: an invalid request, which used to be sent straight to PHISHING.
  return url.href;
}

/** Records every address the browser is sent to: nothing may reach the client's site. */
function watchNavigations(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (request.isNavigationRequest()) seen.push(request.url());
  });
  return seen;
}

for (const { width, height, label } of [
  { width: 1280, height: 800, label: 'desktop' },
  { width: 375, height: 812, label: 'mobile' },
]) {
  test(`an invalid authorization request shows Engram's error page (${label})`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width, height });
    const navigations = watchNavigations(page);
    await page.goto(await phishingAuthorizeUrl(request));
    await expect(page).toHaveURL(/\/oauth\/error\?error=invalid_request$/);
    await expect(
      page.getByRole('heading', { name: 'The app’s request is not valid' }),
    ).toBeVisible();
    await expect(page.getByText(/cannot accept/)).toBeVisible();
    expect(navigations.some((url) => url.startsWith('https://evil.example'))).toBe(false);
    // Nothing spills sideways on a phone.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot(page, `oauth-error-${label}`);
    // The way back: the dashboard (signed out, the sign-in page first).
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await expect(page).toHaveURL(/\/(login|dashboard)/);
  });
}

test('a link carrying its own error text shows only Engram’s words', async ({ page }) => {
  const marker = randomBytes(6).toString('hex');
  await page.goto(`/oauth/error?error=call_us&error_description=Call%20${marker}`);
  await expect(page.getByRole('heading', { name: 'The app could not be connected' })).toBeVisible();
  await expect(page.getByText(marker)).toHaveCount(0);
});
