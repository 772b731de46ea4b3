import { z } from 'zod';

/**
 * The HTTP client of an OpenAI-compatible embeddings endpoint (OpenAI, a
 * local Ollama, vLLM, llama.cpp's server…): `POST {input: [...], model}`
 * answering `{data: [{embedding: number[], index}]}`. Requests go only to
 * the URL the operator set (EMBEDDINGS_URL); the key rides in the
 * Authorization header and appears in no message, error or log.
 */

/** Texts one request carries at most (OpenAI accepts 2,048; local servers prefer fewer). */
export const EMBED_BATCH = 64;
/** Components a vector may have: larger answers are a broken endpoint, not a model. */
export const MAX_DIMENSIONS = 8_192;
/** Bytes an answer may have; an endpoint answering more is cut off. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export type EmbeddingFailure =
  /** The endpoint could not be reached (refused, DNS, TLS, reset). */
  | 'unreachable'
  /** No answer within the request's time. */
  | 'timeout'
  /** An HTTP error status (see `status`). */
  | 'status'
  /** An answer that is not the expected JSON, lacks vectors, or is too big. */
  | 'answer'
  /** Vectors of another length than before, or of differing lengths. */
  | 'dimensions';

/**
 * A failed embedding request. Its message says what went wrong in words an
 * account's dashboard may show: never the key, the URL or the endpoint's text.
 */
export class EmbeddingError extends Error {
  override name = 'EmbeddingError';

  constructor(
    readonly failure: EmbeddingFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }

  /**
   * The endpoint refused these texts rather than failed: an input too long
   * for the model is a 400, 413 or 422 on OpenAI-compatible servers, and a
   * 500 on llama.cpp's. Whether the texts or the endpoint are at fault is
   * decided by trying a short text (the indexer's probe).
   */
  get refusedInput(): boolean {
    return this.failure === 'status' && [400, 413, 422, 500].includes(this.status ?? 0);
  }
}

export interface EmbeddingClientOptions {
  /** EMBEDDINGS_URL: a base URL, a `/v1` URL, or the full `/embeddings` URL. */
  url: string;
  model: string;
  apiKey?: string | undefined;
}

/**
 * Where the requests go: a URL ending in `/embeddings` as it is; after a path
 * ending in `/v1` (an OpenAI SDK's base URL), `/embeddings`; otherwise
 * `/v1/embeddings` after the path (a server's root, as Ollama's is usually given).
 */
export function embeddingsEndpoint(url: string): URL {
  const endpoint = new URL(url);
  const path = endpoint.pathname.replace(/\/+$/, '');
  if (/\/embeddings$/.test(path)) endpoint.pathname = path;
  else if (/\/v1$/.test(path)) endpoint.pathname = `${path}/embeddings`;
  else endpoint.pathname = `${path}/v1/embeddings`;
  return endpoint;
}

const answerSchema = z.object({
  data: z
    .array(
      z.object({
        embedding: z.array(z.number()).min(1).max(MAX_DIMENSIONS),
        index: z.number().int().min(0).optional(),
      }),
    )
    .min(1),
});

export class EmbeddingClient {
  readonly model: string;
  private readonly endpoint: URL;
  private readonly headers: Record<string, string>;

  constructor(options: EmbeddingClientOptions) {
    this.model = options.model;
    this.endpoint = embeddingsEndpoint(options.url);
    this.headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
  }

  /**
   * The vectors of `texts` (at most EMBED_BATCH), in their order, from one
   * request cut after `timeoutMs` or when `signal` aborts. Every vector has
   * the same length; throws EmbeddingError otherwise and on any failure.
   */
  async embed(
    texts: string[],
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<number[][]> {
    if (texts.length === 0) return [];
    if (texts.length > EMBED_BATCH) throw new RangeError(`At most ${EMBED_BATCH} texts a request`);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify({ model: this.model, input: texts }),
        signal,
        redirect: 'error',
      });
    } catch (error) {
      throw transportError(error, timeout, options.timeoutMs);
    }
    if (!response.ok) {
      // The endpoint's own text stays out of the message (it may echo anything).
      await response.body?.cancel().catch(() => {});
      throw new EmbeddingError(
        'status',
        `The embedding service answered HTTP ${response.status}${hintFor(response.status)}`,
        response.status,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBounded(response, MAX_ANSWER_BYTES));
    } catch (error) {
      if (error instanceof EmbeddingError) throw error;
      if (timeout.aborted || (error instanceof Error && error.name === 'AbortError')) {
        throw transportError(error, timeout, options.timeoutMs);
      }
      throw new EmbeddingError(
        'answer',
        'The embedding service answered something other than JSON',
      );
    }
    const parsed = answerSchema.safeParse(body);
    if (!parsed.success || parsed.data.data.length !== texts.length) {
      throw new EmbeddingError(
        'answer',
        `The embedding service's answer has no vector for each of the ${texts.length} texts sent`,
      );
    }
    const vectors: number[][] = new Array(texts.length);
    for (const [position, item] of parsed.data.data.entries()) {
      const index = item.index ?? position;
      if (index >= texts.length || vectors[index]) {
        throw new EmbeddingError(
          'answer',
          "The embedding service's answer numbers its vectors wrongly",
        );
      }
      vectors[index] = item.embedding;
    }
    const length = vectors[0]!.length;
    if (vectors.some((vector) => vector.length !== length)) {
      throw new EmbeddingError(
        'dimensions',
        'The embedding service answered vectors of differing lengths',
      );
    }
    if (vectors.some((vector) => vector.some((value) => !Number.isFinite(value)))) {
      throw new EmbeddingError(
        'answer',
        'The embedding service answered a vector that is not finite',
      );
    }
    return vectors;
  }
}

function hintFor(status: number): string {
  if (status === 401 || status === 403) return ' (check EMBEDDINGS_API_KEY)';
  if (status === 404) return ' (check EMBEDDINGS_URL and EMBEDDINGS_MODEL)';
  if (status === 429) return ' (rate limited)';
  return '';
}

function transportError(error: unknown, timeout: AbortSignal, timeoutMs: number): EmbeddingError {
  if (timeout.aborted) {
    return new EmbeddingError(
      'timeout',
      `The embedding service did not answer within ${timeoutMs} ms`,
    );
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return new EmbeddingError('timeout', 'The embedding request was cancelled');
  }
  // fetch's TypeError carries the socket's error code (ECONNREFUSED, ENOTFOUND…) as its cause.
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code =
    typeof cause?.code === 'string' && /^[A-Z_]+$/.test(cause.code) ? ` (${cause.code})` : '';
  return new EmbeddingError('unreachable', `The embedding service could not be reached${code}`);
}

/** The answer's text, refused once it passes `limit` bytes. */
async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw new EmbeddingError('answer', 'The embedding service answered too much');
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new EmbeddingError('answer', 'The embedding service answered too much');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
