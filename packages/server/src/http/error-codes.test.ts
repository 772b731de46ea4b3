import { ERROR_CODES, ERROR_STATUS } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.js';
import { createTestApp, signUp, type TestApp } from '../test/harness.js';

// Errors by code (docs/architecture.md): the code decides the status, in one
// table, and each code is answered with that one status.

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp();
  token = (await signUp(t.app)).token;
});
afterAll(() => t.close());

describe('error codes', () => {
  it('each has exactly one status, and an error made from a code carries it', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect(new AppError(code, 'x').status, code).toBe(ERROR_STATUS[code]);
    }
  });

  it("gives Fastify's own refusals codes of their own: a body too large, a media type it cannot read", async () => {
    const tooLarge = await t.app.inject({
      method: 'POST',
      url: '/api/entities',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'x',
        type: 'y',
        observations: ['z'.repeat(3 * 1024 * 1024)],
      }),
    });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const unreadable = await t.app.inject({
      method: 'POST',
      url: '/api/entities',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-unknown' },
      payload: 'name=x',
    });
    expect(unreadable.statusCode).toBe(415);
    expect(unreadable.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });

    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/entities',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
