/**
 * Every non-2xx response body has this shape (docs/product.md, Calls). The web app
 * and agents branch on `code`; `error` is for people.
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PLAN_LIMIT_REACHED',
  'RATE_LIMITED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one HTTP status each code is answered with: an error is made from its code alone. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  PLAN_LIMIT_REACHED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export interface ErrorDetail {
  /** Dotted path of the failing field, e.g. `body.name` or `query.limit`. */
  field: string;
  message: string;
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
}
