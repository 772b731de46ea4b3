// The one place a stub stands in for the server: to answer 429 and 503 on cue.
import { describe, expect, it } from 'vitest';
import { Engram, EngramError } from '../src/index.js';
import { retryAfterMs } from '../src/errors.js';

type Answer = Response | Error;

/** A fetch that answers from a script and records when and what it was asked. */
function scripted(...answers: Answer[]) {
  const calls: { at: number; method: string; url: string; body: string }[] = [];
  const fetch = async (request: Request) => {
    calls.push({
      at: Date.now(),
      method: request.method,
      url: request.url,
      body: await request.text(),
    });
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no more answers');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const limited = (retryAfter?: string) =>
  json(
    429,
    { error: 'Too many requests', code: 'RATE_LIMITED' },
    retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  );

const entity = { id: 'e1', name: 'Ada', type: 'person' };

function client(fetch: (request: Request) => Promise<Response>, options = {}) {
  return new Engram({
    url: 'http://engram.test',
    apiKey: 'eng_key_test',
    fetch,
    retries: { baseDelayMs: 10 },
    ...options,
  });
}

describe('retries', () => {
  it('waits what Retry-After asks on 429, then succeeds, the body sent again whole', async () => {
    const { fetch, calls } = scripted(limited('1'), json(201, entity));
    const created = await client(fetch).entities.create({ name: 'Ada', type: 'person' });
    expect(created).toEqual(entity);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
    expect(JSON.parse(calls[1]!.body)).toEqual({ name: 'Ada', type: 'person' });
  });

  it('backs off on 503 without Retry-After, for any method', async () => {
    const unavailable = () => json(503, { error: 'Busy', code: 'SERVICE_UNAVAILABLE' });
    const { fetch, calls } = scripted(unavailable(), unavailable(), json(200, entity));
    await client(fetch).entities.update('e1', { name: 'Ada', type: 'person' });
    expect(calls.map((c) => c.method)).toEqual(['PUT', 'PUT', 'PUT']);
  });

  it('gives up after `retries` and throws the last answer as an EngramError', async () => {
    const { fetch, calls } = scripted(limited('0'), limited('0'), limited('0'));
    const error = await client(fetch, { retries: { retries: 2, baseDelayMs: 1 } })
      .entities.get('e1')
      .catch((e: unknown) => e);
    expect(calls).toHaveLength(3);
    expect(error).toBeInstanceOf(EngramError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 0 });
  });

  it('does not wait past maxDelayMs (a monthly allowance) nor retry with retries: false', async () => {
    const late = scripted(limited('86400'));
    await expect(client(late.fetch).entities.get('e1')).rejects.toMatchObject({
      status: 429,
      retryAfter: 86400,
    });
    expect(late.calls).toHaveLength(1);

    const off = scripted(limited('1'));
    await expect(client(off.fetch, { retries: false }).entities.get('e1')).rejects.toMatchObject({
      status: 429,
    });
    expect(off.calls).toHaveLength(1);
  });

  it('retries network errors for GET, PUT and DELETE, never for POST', async () => {
    const get = scripted(new TypeError('fetch failed'), json(200, entity));
    expect(await client(get.fetch).entities.get('e1')).toEqual(entity);
    expect(get.calls).toHaveLength(2);

    const post = scripted(new TypeError('fetch failed'), json(201, entity));
    const error = await client(post.fetch)
      .entities.create({ name: 'Ada', type: 'person' })
      .catch((e: unknown) => e);
    expect(post.calls).toHaveLength(1);
    expect(error).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
    expect((error as EngramError).cause).toBeInstanceOf(TypeError);
  });

  it('does not retry other errors, and reads an error answer that is not JSON', async () => {
    const { fetch, calls } = scripted(new Response('<html>bad gateway</html>', { status: 502 }));
    await expect(client(fetch).entities.get('e1')).rejects.toMatchObject({
      status: 502,
      code: 'HTTP_502',
      message: '<html>bad gateway</html>',
    });
    expect(calls).toHaveLength(1);
  });

  it('sends the space, account and client headers, and create=1 on writes', async () => {
    const seen: Request[] = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      return json(201, entity);
    };
    const engram = client(fetch, { space: 'proj', account: 'acc1', clientId: 'agent-0001' });
    await engram.entities.create({ name: 'Ada', type: 'person' });
    await engram.withSpace('other', { create: true }).entities.create({ name: 'A', type: 't' });
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer eng_key_test');
    expect(seen[0]!.headers.get('x-engram-space')).toBe('proj');
    expect(seen[0]!.headers.get('x-engram-account')).toBe('acc1');
    expect(seen[0]!.headers.get('x-engram-client')).toBe('agent-0001');
    expect(new URL(seen[0]!.url).searchParams.get('create')).toBeNull();
    expect(seen[1]!.headers.get('x-engram-space')).toBe('other');
    expect(new URL(seen[1]!.url).searchParams.get('create')).toBe('1');
    expect(await seen[1]!.json()).toEqual({ name: 'A', type: 't' });
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(retryAfterMs('Fri, 27 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  });
});
