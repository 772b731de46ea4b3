/** One field the server refused, as its `details` name it. */
export interface EngramErrorDetail {
  field: string;
  message: string;
}

/** The code the server gives each status (docs/api.md), for answers that carry none. */
const CODE_OF_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  402: 'PLAN_LIMIT_REACHED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** `code` of a request that got no answer (after its retries): the network, DNS, a refused connection. */
export const NETWORK_ERROR = 'NETWORK_ERROR';

/**
 * Every failure of the client: an answer of the server (`{ error, code,
 * details? }`, with its HTTP `status`), a request that never got one
 * (`status` 0, `code` NETWORK_ERROR, the original error as `cause`), or the
 * realtime feed refused (`live()`).
 */
export class EngramError extends Error {
  override readonly name = 'EngramError';
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The server's code (`VALIDATION_ERROR`, `NOT_FOUND`, `RATE_LIMITED` …) or NETWORK_ERROR. */
  readonly code: string;
  /** The fields a 400 refused. */
  readonly details: EngramErrorDetail[] | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    init: {
      status: number;
      code: string;
      details?: EngramErrorDetail[];
      retryAfter?: number;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }

  /** The error an answer of the server stands for (its parsed body, or its text). */
  static fromResponse(response: Response, body: unknown): EngramError {
    const fields =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
    const message =
      typeof fields.error === 'string'
        ? fields.error
        : text || `${response.status} ${response.statusText}`.trim();
    const code =
      typeof fields.code === 'string'
        ? fields.code
        : (CODE_OF_STATUS[response.status] ?? `HTTP_${response.status}`);
    const details = Array.isArray(fields.details)
      ? (fields.details as EngramErrorDetail[])
      : undefined;
    const retryAfter = retryAfterMs(response.headers.get('retry-after'));
    return new EngramError(message, {
      status: response.status,
      code,
      details,
      retryAfter: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
    });
  }

  static network(cause: unknown): EngramError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new EngramError(`Network error: ${reason}`, {
      status: 0,
      code: NETWORK_ERROR,
      cause,
    });
  }
}

/** Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), if it is one. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
