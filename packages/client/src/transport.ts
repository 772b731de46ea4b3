import { EngramError, retryAfterMs } from './errors.js';

/** When and how long the client waits before trying a request again. */
export interface RetryOptions {
  /** Tries after the first; 0 (or `retries: false` on the client) never retries. Default 3. */
  retries?: number;
  /** The first wait without `Retry-After`, doubled each try (with jitter). Default 500 ms. */
  baseDelayMs?: number;
  /**
   * The longest wait, `Retry-After` included: an answer asking for longer (a
   * plan's monthly allowance, until the month resets) is not retried, its
   * EngramError carries `retryAfter`. Default 60 s.
   */
  maxDelayMs?: number;
}

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export function retryPolicy(retries: number | false | RetryOptions | undefined): RetryPolicy {
  const given: RetryOptions =
    retries === false
      ? { retries: 0 }
      : typeof retries === 'number'
        ? { retries }
        : (retries ?? {});
  return {
    retries: Math.max(0, Math.floor(given.retries ?? 3)),
    baseDelayMs: given.baseDelayMs ?? 500,
    maxDelayMs: given.maxDelayMs ?? 60_000,
  };
}

/**
 * Methods retried after a network error: the server may have done what a
 * POST or PATCH asked before the connection failed, and doing it twice is not
 * the same; a GET, PUT or DELETE twice is.
 */
const RETRIED_ON_NETWORK_ERROR = new Set(['GET', 'PUT', 'DELETE']);

/** Answers that mean "nothing was done, try later" (docs/api.md: 429 and 503 with `Retry-After`). */
const RETRIED_STATUSES = new Set([429, 503]);

/** The wait before try `attempt + 1`: exponential from `baseDelayMs`, half of it jittered. */
export function backoffMs(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });

export type FetchLike = (input: Request) => Promise<Response>;

/**
 * `fetch` with the client's retries: 429 and 503 for any method (the server
 * wrote nothing), waiting what `Retry-After` asks or else backing off; network
 * errors for GET, PUT and DELETE only. A request that never got an answer
 * ends as an EngramError with status 0 (its cause the original error).
 */
export function retryingFetch(
  fetchImpl: (input: Request) => Promise<Response>,
  policy: RetryPolicy,
): FetchLike {
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= policy.retries;
      let response: Response;
      try {
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (last || !RETRIED_ON_NETWORK_ERROR.has(request.method)) throw EngramError.network(error);
        await sleep(backoffMs(policy, attempt), request.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > policy.maxDelayMs) return response;
      await response.body?.cancel().catch(() => {});
      await sleep(asked ?? backoffMs(policy, attempt), request.signal);
    }
  };
}
