import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorDetail } from '@engram/shared';

/**
 * The one error type services throw, made from its code (the code decides
 * the HTTP status: `ERROR_STATUS` in packages/shared). The HTTP error
 * handler, the MCP adapter and the WebSocket gateway each turn it into their
 * own reply. Services make errors with the functions below, never with `new`.
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Sent as `Retry-After` (seconds) with 429 and 503 answers. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return this.details
      ? { error: this.message, code: this.code, details: this.details }
      : { error: this.message, code: this.code };
  }
}

/** 400 naming the failing field. */
export const badRequest = (field: string, message: string) =>
  new AppError('VALIDATION_ERROR', message, [{ field, message }]);

/** 400 about the input as a whole (a file, a line of it), with no one field to name. */
export const invalidInput = (message: string) => new AppError('VALIDATION_ERROR', message);

export const unauthorized = (message = 'Authentication required') =>
  new AppError('UNAUTHORIZED', message);

export const forbidden = (message: string, field?: string) =>
  new AppError('FORBIDDEN', message, field ? [{ field, message }] : undefined);

/** 404 "<what> not found". */
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);

/** 404 in words of its own, optionally naming the field that named what is missing. */
export const notFoundBecause = (message: string, field?: string) =>
  new AppError('NOT_FOUND', message, field ? [{ field, message }] : undefined);

/** 409; `details` names the field, or each thing in the way. */
export const conflict = (message: string, details?: string | ErrorDetail[]) =>
  new AppError(
    'CONFLICT',
    message,
    typeof details === 'string' ? [{ field: details, message }] : details,
  );

export const planLimit = (message: string) => new AppError('PLAN_LIMIT_REACHED', message);

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new AppError('RATE_LIMITED', message, undefined, retryAfterSeconds);

export const serviceUnavailable = (message: string, retryAfterSeconds: number) =>
  new AppError('SERVICE_UNAVAILABLE', message, undefined, retryAfterSeconds);

/** The same error in other words (what a caller adds to it). */
export const reworded = (error: AppError, message: string) =>
  new AppError(error.code, message, error.details, error.retryAfterSeconds);

/**
 * The AppError a database constraint error stands for, when a race slipped
 * past a service's own checks or the database refused a value.
 */
export function fromDatabaseError(error: unknown): AppError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '23505') return conflict('That already exists: another change got there first');
  if (code === '57014') {
    // statement_timeout (or the deadline of db/deadline.ts): the transaction was rolled back.
    return serviceUnavailable(
      'The request took too long and was stopped; nothing was changed. Try again, or ask for less at once.',
      1,
    );
  }
  if (code === '22021' || code === '22P05') {
    return invalidInput('Text must not contain NUL (\\u0000) characters');
  }
  return undefined;
}
