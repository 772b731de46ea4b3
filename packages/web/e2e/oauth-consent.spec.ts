import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
}

/** The client app's redirect URI: a listener that records where the browser was sent back. */
async function startCallback() {
  const hits: URL[] = [];
  const server = createServer((incoming, response) => {
    hits.push(new URL(incoming.url ?? '/', 'http://127.0.0.1'));
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end('Back in the app');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    // The browser may ask this origin for more (its favicon): the redirect is what counts.
    last: () => hits.filter((hit) => hit.pathname === '/callback').at(-1),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * What an MCP client does before it opens the browser: discovery and
 * registration. The resource is named after the issuer (PUBLIC_URL's origin),
 * which may differ from the test's base URL.
 */
async function registerClient(request: APIRequestContext, name: string, redirectUri: string) {
  const discovery = await request.get('/.well-known/oauth-authorization-server');
  expect(discovery.status()).toBe(200);
  const metadata = (await discovery.json()) as ServerMetadata;
  const registered = await request.post(metadata.registration_endpoint, {
    data: {
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  });
  expect(registered.status()).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  return {
    metadata,
    clientId,
    // The browser's side of the flow (authorization, then consent) is on this origin.
    origin: new URL(metadata.authorization_endpoint).origin,
    mcpUrl: `${new URL(metadata.issuer).origin}/mcp`,
  };
}

/** Signs in at `origin` (where the consent screen will open), as after login. */
async function signInAt(page: Page, account: Account, origin: string) {
  await page.goto(`${origin}/pricing`);
  await page.evaluate((token) => localStorage.setItem('auth_token', token), account.token);
}

/** Opens the authorization URL in the signed-in browser, as the client app does. */
async function authorize(
  page: Page,
  client: Awaited<ReturnType<typeof registerClient>>,
  redirectUri: string,
) {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(client.metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'memory:read memory:write',
    state: 'e2e-state',
    resource: client.mcpUrl,
  }).toString();
  await page.goto(url.href);
  return verifier;
}

test('allowing on the consent screen connects the app; Settings lists it and revokes it', async ({
  page,
  request,
}) => {
  const account = await createAccount(request, 'oauth');
  const callback = await startCallback();
  const client = await registerClient(request, 'E2E Agent', callback.redirectUri);
  await signInAt(page, account, client.origin);
  const verifier = await authorize(page, client, callback.redirectUri);

  await expect(page).toHaveURL(/\/oauth\/consent\?uid=/);
  await expect(page.getByRole('heading', { name: 'Connect E2E Agent to Engram' })).toBeVisible();
  await expect(page).toHaveTitle('Connect E2E Agent to Engram');
  await expect(page.getByTestId('redirect-host')).toContainText('127.0.0.1');
  await expect(page.getByText(account.email)).toBeVisible();
  await expect(page.getByText('The default space')).toBeVisible();
  await saveScreenshot(page, 'oauth-consent-desktop');
  await page.setViewportSize({ width: 375, height: 812 });
  await saveScreenshot(page, 'oauth-consent-mobile');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect.poll(() => callback.last()?.searchParams.get('state')).toBe('e2e-state');
  // The app's page has loaded: a navigation started now is not cut short by that one.
  await page.waitForURL((url) => url.pathname === '/callback');
  const code = callback.last()!.searchParams.get('code');
  expect(code).toBeTruthy();
  await callback.close();

  // The app redeems its code, as an MCP client does.
  const token = await request.post(client.metadata.token_endpoint, {
    form: {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: callback.redirectUri,
      client_id: client.clientId,
      code_verifier: verifier,
      resource: client.mcpUrl,
    },
  });
  expect(token.status()).toBe(200);

  await page.goto(`${client.origin}/settings`);
  const card = page.getByRole('region', { name: 'Connected apps' });
  const row = card.getByRole('listitem', { name: 'E2E Agent' });
  await expect(row).toContainText('Last used');
  await expect(row.getByText('Read', { exact: true })).toBeVisible();
  await expect(row.getByText('Write', { exact: true })).toBeVisible();
  await row.getByRole('button', { name: 'Revoke' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke access' });
  await expect(dialog).toContainText(
    'Revoke access for E2E Agent? It will be signed out of Engram at once.',
  );
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('Access revoked')).toBeVisible();
  await expect(card.getByText('No apps connected')).toBeVisible();
});

test('denying sends the browser back to the app with access_denied', async ({ page, request }) => {
  const account = await createAccount(request, 'oauth-deny');
  const callback = await startCallback();
  const client = await registerClient(request, 'Denied Agent', callback.redirectUri);
  await signInAt(page, account, client.origin);
  await authorize(page, client, callback.redirectUri);
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect.poll(() => callback.last()?.searchParams.get('error')).toBe('access_denied');
  await page.waitForURL((url) => url.pathname === '/callback');
  expect(callback.last()?.searchParams.get('code')).toBeNull();
  await callback.close();
});

test('an unknown request says it has expired', async ({ page, request }) => {
  const account = await createAccount(request, 'oauth-expired');
  await openSignedIn(page, account, '/oauth/consent?uid=no-such-request');
  await expect(
    page.getByText(
      'This sign-in request has expired or is not valid. Go back to your app and connect again.',
    ),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Allow' })).toHaveCount(0);
});
