import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { createRuntime } from '../runtime.js';
import { createTestDatabase, testConfig, type TestApp } from './harness.js';

/** A port nobody listens on now (the issuer must name the port before the app listens). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface OAuthTestServer extends TestApp {
  /** The issuer and the address the server listens at: http://127.0.0.1:PORT (with or without PUBLIC_URL). */
  base: string;
}

/** A listening app whose PUBLIC_URL is its own address (the OAuth issuer), on a fresh database. */
export async function startOAuthServer(
  overrides: Partial<Record<keyof Config, string>> = {},
  oauth: { metadataCa?: string } = {},
): Promise<OAuthTestServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // PUBLIC_URL: '' starts it without one (the issuer is then the banner's http://127.0.0.1:PORT).
  const { PUBLIC_URL = base, ...rest } = overrides;
  const config = testConfig({ PORT: String(port), ...(PUBLIC_URL ? { PUBLIC_URL } : {}), ...rest });
  const database = await createTestDatabase(config.STATEMENT_TIMEOUT_MS);
  const runtime = await createRuntime(config, { database, oauth });
  const app = await buildApp({ config, runtime });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    database,
    runtime,
    base,
    close: async () => {
      await app.close();
      await runtime.close();
      await database.close();
    },
  };
}

/** A PKCE pair (S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

/**
 * A browser for the authorization endpoint: follows nothing on its own,
 * keeps the cookies the server sets (paths ignored) and sends them back.
 */
export class TestBrowser {
  readonly cookies = new Map<string, string>();

  async get(url: string): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects while they stay on `base`; returns the first address outside it (or the last answer's). */
  async follow(url: string, base: string): Promise<{ url: URL; response: Response }> {
    let next = new URL(url, base);
    for (let hop = 0; hop < 10; hop++) {
      const response = await this.get(next.href);
      const location = response.headers.get('location');
      if (!location) return { url: next, response };
      next = new URL(location, next);
      // The web app's pages (not served in tests): the consent screen and the error page.
      if (
        next.origin !== new URL(base).origin ||
        next.pathname === '/oauth/consent' ||
        next.pathname === '/oauth/error'
      ) {
        return { url: next, response };
      }
    }
    throw new Error('too many redirects');
  }
}

/** The consent API's answer for `uid`, as the web app asks it with the person's session. */
export async function answerConsent(
  base: string,
  session: string,
  uid: string,
  decision: 'allow' | 'deny',
): Promise<string> {
  const response = await fetch(new URL(`/api/oauth/interactions/${uid}`, base), {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ decision }),
  });
  if (response.status !== 200) throw new Error(`consent failed: ${await response.text()}`);
  return ((await response.json()) as { redirectTo: string }).redirectTo;
}

/** POSTs a form to the token endpoint. */
export async function tokenRequest(
  base: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(new URL('/oauth/token', base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** A self-signed certificate for localhost and 127.0.0.1 (openssl), and an https server with it. */
export async function startHttpsServer(
  handler: (path: string) => { status: number; body: string; headers?: Record<string, string> },
): Promise<{ server: HttpsServer; origin: string; cert: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const key = readFileSync(join(dir, 'key.pem'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const server = createHttpsServer({ cert, key }, (request, response) => {
    const answer = handler(request.url ?? '/');
    response.writeHead(answer.status, {
      'content-type': 'application/json',
      ...answer.headers,
    });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    origin: `https://127.0.0.1:${port}`,
    cert,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
