import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('security headers', () => {
  it.each([
    ['a page', 'GET', '/'],
    ['the API', 'GET', '/api/entities'],
    ['a refused MCP call', 'POST', '/mcp'],
    ['a route that does not exist', 'GET', '/api/nowhere'],
  ] as const)('are on every response: %s', async (_what, method, url) => {
    const response = await t.app.inject({ method, url });
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self' ws: wss:");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('stripe');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });
});
