import { createHash } from 'node:crypto';
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

describe('the API reference at /docs', () => {
  it('allows exactly the style elements Swagger UI creates, by hash', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    const csp = page.headers['content-security-policy'] as string;
    const styleSrc = csp.split(';').find((directive) => directive.trim().startsWith('style-src'));
    expect(styleSrc).not.toContain("'unsafe-inline'");

    // Every <style> the served preset's scripts create, hashed as the browser does.
    const preset = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui-standalone-preset.js',
    });
    expect(preset.statusCode).toBe(200);
    const styles = [...preset.body.matchAll(/createElement\("style",null,("(?:[^"\\]|\\.)*")\)/g)];
    expect(styles.length).toBeGreaterThan(0);
    for (const [, literal] of styles) {
      const text = JSON.parse(literal!) as string;
      const hash = createHash('sha256').update(text).digest('base64');
      expect(styleSrc).toContain(`'sha256-${hash}'`);
    }
  });
});
