import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectInfo } from '@engram/shared';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../../test/harness.js';
import { createConnectService } from './connect.service.js';

// GET /api/connect (issue 58, item 6): the stdio snippet's paths, filled in
// only for a person on the server's own machine while PUBLIC_URL is unset.

const REPOSITORY = fileURLToPath(new URL('../../../../../', import.meta.url)).replace(/\/$/, '');
const DATA_DIR = '/srv/engram-test/data';

describe('GET /api/connect on a loopback server without PUBLIC_URL', () => {
  let t: TestApp;
  let token: string;
  let apiKey: string;
  beforeAll(async () => {
    t = await createTestApp({ DATA_DIR });
    ({
      token,
      user: { apiKey },
    } = await signUp(t.app));
  });
  afterAll(() => t.close());

  const ask = (options: Omit<InjectOptions, 'method' | 'url'> = {}) =>
    t.app.inject({
      method: 'GET',
      url: '/api/connect',
      remoteAddress: '127.0.0.1',
      ...options,
      headers: { host: '127.0.0.1:8787', authorization: `Bearer ${token}`, ...options.headers },
    });

  it('gives a signed-in person on this machine the Engram folder and the data folder', async () => {
    const response = await ask();
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const { local } = connectInfo.parse(response.json());
    expect(local).toEqual({ installDir: REPOSITORY, dataDir: DATA_DIR });
    // The folder the stdio snippet starts `engram mcp` from.
    expect(existsSync(join(local!.installDir, 'packages/server/package.json'))).toBe(true);
  });

  it('answers every loopback name, over IPv4 and IPv6', async () => {
    for (const [host, remoteAddress] of [
      ['localhost:8787', '127.0.0.1'],
      ['LOCALHOST', '::ffff:127.0.0.1'],
      ['[::1]:8787', '::1'],
    ] as const) {
      const response = await ask({ remoteAddress, headers: { host } });
      expect(response.json().local, host).not.toBeNull();
    }
  });

  it('shows no paths to a request that names another host, even from loopback', async () => {
    // A page on a name that resolves to 127.0.0.1 (DNS rebinding), or the server's LAN address.
    for (const host of [
      'engram.example.com',
      '192.168.1.20:8787',
      '127.0.0.1.nip.io:8787',
      'localhost.attacker.example',
      '127.0.0.1@attacker.example',
    ]) {
      const response = await ask({ headers: { host } });
      expect(response.statusCode, host).toBe(200);
      expect(response.json(), host).toEqual({ local: null });
      expect(response.body).not.toContain(DATA_DIR);
    }
  });

  it('shows no paths to another machine, whatever Host it sends', async () => {
    for (const remoteAddress of ['203.0.113.7', '192.168.1.30', '::ffff:10.0.0.2', 'fe80::1']) {
      const response = await ask({ remoteAddress, headers: { host: 'localhost:8787' } });
      expect(response.json(), remoteAddress).toEqual({ local: null });
    }
  });

  it('shows no paths to a request a proxy relayed from loopback', async () => {
    for (const header of [
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-forwarded-host': 'localhost' },
      { 'x-forwarded-proto': 'https' },
      { 'x-real-ip': '127.0.0.1' },
      { forwarded: 'for=127.0.0.1' },
    ]) {
      const response = await ask({ headers: header });
      expect(response.json(), JSON.stringify(header)).toEqual({ local: null });
    }
  });

  it('is for a signed-in person only: no credential and API keys are 401', async () => {
    const host = '127.0.0.1:8787';
    for (const headers of [{ host }, { host, 'x-api-key': apiKey }]) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/connect',
        remoteAddress: '127.0.0.1',
        headers,
      });
      expect(response.statusCode).toBe(401);
      expect(response.body).not.toContain(DATA_DIR);
    }
    const withKey = await ask({ headers: { authorization: `Bearer ${apiKey}` } });
    expect(withKey.statusCode).toBe(401);
    expect(withKey.json().error).toMatch(/signed-in session/);
  });

  it('is in the OpenAPI document with its schema', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const answer = spec.paths['/api/connect'].get.responses['200'].content['application/json'];
    expect(Object.keys(answer.schema.properties)).toEqual(['local']);
  });

  it('on a wildcard bind, gives the paths to this machine over loopback and never over the network', async () => {
    const wildcard = await createTestApp({ DATA_DIR, HOST: '0.0.0.0' });
    try {
      await wildcard.app.listen({ host: '0.0.0.0', port: 0 });
      const { port } = wildcard.app.server.address() as { port: number };
      const session = (await signUp(wildcard.app)).token;
      const ask = async (host: string) => {
        const response = await fetch(`http://${host}:${port}/api/connect`, {
          headers: { authorization: `Bearer ${session}` },
        });
        return connectInfo.parse(await response.json());
      };
      expect((await ask('127.0.0.1')).local?.dataDir).toBe(DATA_DIR);
      expect((await ask('localhost')).local?.dataDir).toBe(DATA_DIR);
      const lan = Object.values(networkInterfaces())
        .flat()
        .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
      if (!lan) {
        console.warn('No network address besides loopback: the LAN request is not tried.');
        return;
      }
      expect(await ask(lan)).toEqual({ local: null });
    } finally {
      await wildcard.close();
    }
  });
});

describe('GET /api/connect with PUBLIC_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DATA_DIR, PUBLIC_URL: 'https://engram.example.com' });
  });
  afterAll(() => t.close());

  it('never shows the paths, not even to a request from loopback', async () => {
    const { token } = await signUp(t.app);
    for (const host of ['localhost:8787', '127.0.0.1:8787', 'engram.example.com']) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/connect',
        remoteAddress: '127.0.0.1',
        headers: { host, authorization: `Bearer ${token}` },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json(), host).toEqual({ local: null });
      expect(response.body).not.toContain(DATA_DIR);
      expect(response.body).not.toContain(REPOSITORY);
    }
  });
});

describe('the connect service', () => {
  const base = { publicUrl: undefined, databaseUrl: undefined, installDir: '/opt/engram' };

  it('resolves a relative DATA_DIR as the server does (from its working folder)', () => {
    const service = createConnectService({ ...base, dataDir: './data' });
    expect(service.localInstall(true)).toEqual({
      installDir: '/opt/engram',
      dataDir: resolve('data'),
    });
    expect(service.localInstall(false)).toBeNull();
  });

  it('names no data folder on PostgreSQL, and none for an in-memory database', () => {
    const postgres = createConnectService({
      ...base,
      databaseUrl: 'postgres://engram@db/engram',
      dataDir: './data',
    });
    expect(postgres.localInstall(true)).toEqual({ installDir: '/opt/engram', dataDir: null });
    const memory = createConnectService({ ...base, dataDir: 'memory://' });
    expect(memory.localInstall(true)?.dataDir).toBeNull();
  });

  it('gives nothing with PUBLIC_URL set, whoever asks', () => {
    const service = createConnectService({
      ...base,
      publicUrl: 'https://engram.example.com',
      dataDir: './data',
    });
    expect(service.localInstall(true)).toBeNull();
  });
});
