import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible embeddings endpoint, for tests
 * only: the real client (features/embeddings/embedding-client.ts) talks HTTP
 * to it. Its "model" is a hashed bag of words in `dimensions` dimensions,
 * normalized, where a few words are read as the concept they share (job,
 * employment, career → work), so a paraphrase lands nearer its original than
 * an unrelated text.
 * Every request is recorded; a test can make it fail, stall, refuse texts or
 * answer another length, and run a hook before it answers.
 */

const CONCEPTS: Record<string, string> = {
  job: 'work',
  jobs: 'work',
  employment: 'work',
  employer: 'work',
  career: 'work',
  position: 'work',
  role: 'work',
  started: 'begin',
  start: 'begin',
  began: 'begin',
  begin: 'begin',
  joined: 'begin',
  new: 'fresh',
  fresh: 'fresh',
  hiking: 'outdoors',
  hike: 'outdoors',
  walks: 'outdoors',
  mountains: 'outdoors',
  trail: 'outdoors',
  dog: 'pet',
  puppy: 'pet',
  cat: 'pet',
};

export function standInVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  for (const word of words) {
    const token = CONCEPTS[word] ?? word;
    const digest = createHash('sha256').update(token).digest();
    const slot = digest.readUInt32BE(0) % dimensions;
    vector[slot]! += digest[4]! & 1 ? 1 : -1;
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return vector.map((value) => value / norm);
}

export interface StandInRequest {
  path: string;
  authorization: string | undefined;
  model: unknown;
  input: string[];
}

export interface StandInBehaviour {
  dimensions: number;
  /** Answer this status (and no vectors) to every request while set. */
  failWith: number | undefined;
  /** Wait this long before answering. */
  delayMs: number;
  /** Texts containing this are refused (400), alone or in a batch. */
  refuse: string | undefined;
  /** Runs before each answer (e.g. deletes an observation meanwhile). */
  beforeAnswer: ((request: StandInRequest) => Promise<void>) | undefined;
}

export interface EmbeddingStandIn {
  url: string;
  requests: StandInRequest[];
  behaviour: StandInBehaviour;
  /** Back to answering every request at once with `dimensions`-long vectors. */
  reset(): void;
  close(): Promise<void>;
}

export async function startEmbeddingStandIn(dimensions = 64): Promise<EmbeddingStandIn> {
  const requests: StandInRequest[] = [];
  const initial = (): StandInBehaviour => ({
    dimensions,
    failWith: undefined,
    delayMs: 0,
    refuse: undefined,
    beforeAnswer: undefined,
  });
  const behaviour = initial();

  const server: Server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      response.statusCode = 599;
      response.end(String(error));
    });
  });

  async function answer(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      model?: unknown;
      input?: unknown;
    };
    const input = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
    const recorded: StandInRequest = {
      path: request.url ?? '',
      authorization: request.headers.authorization,
      model: body.model,
      input,
    };
    requests.push(recorded);
    if (behaviour.delayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    await behaviour.beforeAnswer?.(recorded);
    response.setHeader('content-type', 'application/json');
    if (request.method !== 'POST' || !request.url?.endsWith('/embeddings')) {
      response.statusCode = 404;
      response.end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    if (behaviour.failWith) {
      response.statusCode = behaviour.failWith;
      response.end(JSON.stringify({ error: { message: 'stand-in failure' } }));
      return;
    }
    const refuse = behaviour.refuse;
    if (refuse && input.some((text) => text.includes(refuse))) {
      response.statusCode = 400;
      response.end(JSON.stringify({ error: { message: 'input too long for the model' } }));
      return;
    }
    response.end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: standInVector(text, behaviour.dimensions),
        })),
      }),
    );
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behaviour,
    reset() {
      Object.assign(behaviour, initial());
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
