import { describe, it, beforeAll, afterAll } from 'vitest';
import { createTestApp, signUp, as, type TestApp } from '../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'error', NODE_ENV: 'production' });
});
afterAll(async () => {
  await t.close();
});

describe('probe', () => {
  it('probes', async () => {
    const { token } = await signUp(t.app);
    const req = as(t.app, token);
    for (let round = 0; round < 3; round++) {
      const e = (
        await req({
          method: 'POST',
          url: '/api/entities',
          payload: { name: 'E' + round, type: 't' },
        })
      ).json();
      const rs = await Promise.all(
        Array.from({ length: 6 }, () =>
          req({
            method: 'POST',
            url: `/api/entities/${e.id}/observations`,
            payload: { observations: ['same'] },
          }),
        ),
      );
      console.log('statuses', rs.map((r) => r.statusCode).join(','));
      const g = (await req({ method: 'GET', url: `/api/entities/${e.id}` })).json();
      console.log('obs', g.observations.length, g.observationsCount);
      const cs = await Promise.all(
        Array.from({ length: 6 }, () =>
          req({
            method: 'POST',
            url: `/api/entities`,
            payload: { name: 'dup' + round, type: 'x' },
          }),
        ),
      );
      console.log(
        'create statuses',
        cs.map((r) => r.statusCode + ':' + r.body.slice(0, 80)).join(' | '),
      );
      const b = (
        await req({
          method: 'POST',
          url: '/api/entities',
          payload: { name: 'F' + round, type: 't' },
        })
      ).json();
      const rr = await Promise.all(
        Array.from({ length: 6 }, () =>
          req({
            method: 'POST',
            url: `/api/relations`,
            payload: { fromEntityId: e.id, toEntityId: b.id, type: 'r' },
          }),
        ),
      );
      console.log(
        'rel statuses',
        rr.map((r) => r.statusCode + ':' + r.body.slice(0, 60)).join(' | '),
      );
      const pu = await Promise.all(
        ['n1', 'n2', 'n3'].map((n) =>
          req({
            method: 'PUT',
            url: `/api/entities/${b.id}`,
            payload: { name: 'same-new' + round, type: n },
          }),
        ),
      );
      console.log(
        'put statuses',
        pu.map((r) => r.statusCode + ':' + r.body.slice(0, 60)).join(' | '),
      );
      const pu2 = await Promise.all(
        [b.id, e.id].map((id) =>
          req({
            method: 'PUT',
            url: `/api/entities/${id}`,
            payload: { name: 'clash' + round, type: 'z' },
          }),
        ),
      );
      console.log(
        'put clash statuses',
        pu2.map((r) => r.statusCode + ':' + r.body.slice(0, 80)).join(' | '),
      );
    }
    const types = (await req({ method: 'GET', url: '/api/entities/types' })).json();
    console.log(JSON.stringify(types));
  });
});
