import type { ErrorBody, ErrorCode, ErrorDetail } from '@engram/shared';

/**
 * The one error type services throw. The HTTP error handler, the MCP adapter
 * and the WebSocket gateway each turn it into their own reply.
 */
export class AppError extends Error {
  /** Sent as `Retry-After` (seconds) with 429 and 503 answers. */
  retryAfterSeconds: number | undefined;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return this.details
      ? { error: this.message, code: this.code, details: this.details }
      : { error: this.message, code: this.code };
  }
}

export const badRequest = (field: string, message: string) =>
  new AppError(400, 'VALIDATION_ERROR', message, [{ field, message }]);

export const unauthorized = (message = 'Authentication required') =>
  new AppError(401, 'UNAUTHORIZED', message);

export const forbidden = (message: string) => new AppError(403, 'FORBIDDEN', message);

export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (message: string, field?: string) =>
  new AppError(409, 'CONFLICT', message, field ? [{ field, message }] : undefined);

export const planLimit = (message: string) => new AppError(402, 'PLAN_LIMIT_REACHED', message);

/**
 * The AppError a database constraint error stands for, when a race slipped
 * past a service's own checks or the database refused a value.
 */
export function fromDatabaseError(error: unknown): AppError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '23505') return conflict('That already exists: another change got there first');
  if (code === '57014') {
    // statement_timeout (or the deadline of db/deadline.ts): the transaction was rolled back.
    const error = new AppError(
      503,
      'SERVICE_UNAVAILABLE',
      'The request took too long and was stopped; nothing was changed. Try again, or ask for less at once.',
    );
    error.retryAfterSeconds = 1;
    return error;
  }
  if (code === '22021' || code === '22P05') {
    return new AppError(400, 'VALIDATION_ERROR', 'Text must not contain NUL (\\u0000) characters');
  }
  return undefined;
}

export function tooManyRequests(message: string, retryAfterSeconds: number): AppError {
  const error = new AppError(429, 'RATE_LIMITED', message);
  error.retryAfterSeconds = retryAfterSeconds;
  return error;
}
