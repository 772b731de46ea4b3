import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataFetch, METADATA_MAX_BYTES } from '../features/oauth/metadata-fetch.js';
import { pkce, startHttpsServer, startOAuthServer, TestBrowser } from '../test/oauth.js';
import { refusedTarget, sendWebhook } from '../features/webhooks/webhook-sender.js';
import { isPrivateAddress } from '../lib/outbound-address.js';

// Requests the server makes on a user's say-so (client metadata, sector
// identifiers, webhooks) against a peer that answers what it likes: whatever
// arrives, the process lives on and the limits hold (issue 56, item 1).

/** A client metadata document padded to `bytes`, valid JSON all the same. */
function paddedDocument(clientId: string, bytes: number): string {
  const base = {
    client_id: clientId,
    client_name: 'Padded',
    redirect_uris: ['http://127.0.0.1:9/callback'],
    token_endpoint_auth_method: 'none',
  };
  const padding = Math.max(0, bytes - JSON.stringify(base).length - 20);
  return JSON.stringify({ ...base, logo_uri: `https://example.com/${'x'.repeat(padding)}` });
}

let documents: Awaited<ReturnType<typeof startHttpsServer>>;
beforeAll(async () => {
  // Each document is answered in one write: with keep-alive (the default) or `Connection: close`.
  documents = await startHttpsServer((path) => {
    const size = Number(/size-(\d+)/.exec(path)?.[1] ?? 1000);
    return {
      status: 200,
      body: paddedDocument(`${documents.origin}${path}`, size),
      headers: path.includes('close') ? { connection: 'close' } : undefined,
    };
  });
});
afterAll(() => documents.close());

describe('a client metadata document larger than the limit', () => {
  const fetchDocument = () =>
    metadataFetch({ allowPrivateNetwork: true, ca: documents.cert }) as (
      url: string,
    ) => Promise<Response>;

  for (const size of [METADATA_MAX_BYTES + 1_000, 16 * 1024, 64 * 1024]) {
    for (const connection of ['keep-alive', 'close']) {
      it(`is refused, whole in one piece (${size} bytes, ${connection})`, async () => {
        const url = `${documents.origin}/size-${size}/${connection}/c.json`;
        await expect(fetchDocument()(url)).rejects.toThrow(/too large/);
        // The process took no uncaught error: the next fetch on the same host works.
        const small = await fetchDocument()(`${documents.origin}/size-500/c.json`);
        expect(small.status).toBe(200);
        expect(((await small.json()) as { client_name: string }).client_name).toBe('Padded');
      });
    }
  }

  it('is refused when a Content-Length says so, before the body is read', async () => {
    const url = `${documents.origin}/size-${METADATA_MAX_BYTES * 3}/c.json`;
    await expect(fetchDocument()(url)).rejects.toThrow(/too large/);
  });

  it('does not stop the server behind GET /oauth/authorize, signed out', async () => {
    const t = await startOAuthServer(
      { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
      { metadataCa: documents.cert },
    );
    try {
      for (const connection of ['keep-alive', 'close']) {
        const clientId = `${documents.origin}/size-${8 * 1024}/${connection}/c.json`;
        const query = new URLSearchParams({
          client_id: clientId,
          response_type: 'code',
          redirect_uri: 'http://127.0.0.1:9/callback',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          scope: 'memory:read',
          resource: `${t.base}/mcp`,
        });
        const response = await new TestBrowser().get(`${t.base}/oauth/authorize?${query}`);
        // Refused as a client the server could not read, never accepted past the cap.
        expect(response.status, connection).toBeGreaterThanOrEqual(300);
        expect(response.status, connection).toBeLessThan(500);
        const where = response.headers.get('location') ?? '';
        expect(where, connection).not.toMatch(/consent/);
      }
      // The other door: a sector identifier named at registration is fetched the same way.
      for (const connection of ['keep-alive', 'close']) {
        const registered = await fetch(`${t.base}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            redirect_uris: ['http://127.0.0.1:9/callback'],
            token_endpoint_auth_method: 'none',
            sector_identifier_uri: `${documents.origin}/size-${8 * 1024}/${connection}/s.json`,
          }),
        });
        expect(registered.status, connection).toBeGreaterThanOrEqual(400);
        expect(registered.status, connection).toBeLessThan(500);
        // Refused at the cap, not cut short and then read as broken JSON.
        expect(await registered.text(), connection).not.toMatch(/parse/);
      }
      expect((await fetch(`${t.base}/healthz`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('a webhook endpoint answering a long body in one piece', () => {
  it('is recorded as its status, and the process lives on', async () => {
    const receiver = await startHttpsServer(() => ({
      status: 200,
      body: 'y'.repeat(64 * 1024),
    }));
    try {
      for (let i = 0; i < 3; i++) {
        const attempt = await sendWebhook(
          `${receiver.origin}/hook`,
          '{}',
          {},
          {
            allowPrivateNetwork: true,
            ca: receiver.cert,
          },
        );
        expect(attempt.outcome).toBe('succeeded');
        expect(attempt.excerpt?.length).toBe(500);
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('the outbound address block list', () => {
  it('refuses the IPv6 ranges that reach IPv4 or private space', () => {
    for (const address of [
      '::7f00:1', // IPv4-compatible ::127.0.0.1 (::/96)
      '::a00:1',
      '64:ff9b:1::a00:1', // local-use NAT64 (64:ff9b:1::/48)
      '2002:7f00:1::1', // 6to4 of 127.0.0.1 (2002::/16)
      'fec0::1', // site-local (fec0::/10)
      '2001::1', // Teredo (2001::/32)
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    expect(refusedTarget(new URL('https://[::7f00:1]:9443/hook'), false)).toMatch(/private/);
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860::8888']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});
