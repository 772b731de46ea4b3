import { describe, it, beforeAll, afterAll } from 'vitest';
import { createTestApp, signUp, as, type TestApp } from '../test/harness.js';

let t: TestApp;
beforeAll(async () => { t = await createTestApp({ LOG_LEVEL: 'error', NODE_ENV: 'production' }); });
afterAll(async () => { await t.close(); });

describe('probe', () => {
  it('probes', async () => {
    const { token } = await signUp(t.app);
    const req = as(t.app, token);
    const show = async (label: string, o: any) => {
      const r = await req(o);
      console.log(label, r.statusCode, r.headers['content-type'], r.body.slice(0, 300));
      return r;
    };
    await show('bad pct path', { method: 'GET', url: '/api/entities/%ZZ' });
    await show('bad pct path2', { method: 'GET', url: '/api/entities/%' });
    await show('bad pct query', { method: 'GET', url: '/api/entities?query=%ZZ&limit=%' });
    await show('raw unicode path', { method: 'GET', url: '/api/entities/ünï' });
    await show('enc slash', { method: 'GET', url: '/api/entities/a%2Fb' });
    await show('enc dotdot', { method: 'GET', url: '/api/entities/%2e%2e' });
    await show('head', { method: 'HEAD', url: '/api/entities' });
    await show('options', { method: 'OPTIONS', url: '/api/entities' });
    await show('limit 0x10', { method: 'GET', url: '/api/entities?limit=0x10' });
    await show('limit space', { method: 'GET', url: '/api/entities?limit=%20' });
    await show('limit empty', { method: 'GET', url: '/api/entities?limit=' });
    await show('types rep', { method: 'GET', url: '/api/entities?types=a&types=b' });
    await show('query long', { method: 'GET', url: '/api/entities?query=' + 'q'.repeat(600) });
    await show('bracket', { method: 'GET', url: '/api/entities?limit[a]=1&query[]=x' });
    await show('proto q', { method: 'GET', url: '/api/entities?__proto__=1&constructor=2' });
    await show('json on get', { method: 'GET', url: '/api/entities', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    await show('multipart', { method: 'POST', url: '/api/entities', headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x\r\n' });
    await show('ct garbage', { method: 'POST', url: '/api/entities', headers: { 'content-type': '///' }, payload: '{}' });
    await show('deep json', { method: 'POST', url: '/api/entities', headers: { 'content-type': 'application/json' }, payload: '['.repeat(200000) + ']'.repeat(200000) });
    const r = await t.app.inject({ method: 'GET', url: '/api/entities', headers: { authorization: 'Bearer ' + 'x'.repeat(600) } });
    console.log('long token', r.statusCode, r.body);
    const r2 = await t.app.inject({ method: 'GET', url: '/api/entities', headers: { 'x-api-key': token } });
    console.log('x-api-key session', r2.statusCode, r2.body.slice(0,100));
    const r3 = await t.app.inject({ method: 'GET', url: '/api/entities/%ZZ' });
    console.log('noauth bad pct', r3.statusCode, r3.body.slice(0,300));
  });
});
