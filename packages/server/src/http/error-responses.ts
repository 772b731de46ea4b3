import { ERROR_STATUS, errorResponse, type ErrorCode } from '@engram/shared';

/**
 * The error answers a route documents (its OpenAPI `response` entries), named
 * by the codes it may give: each code's one status (`ERROR_STATUS`) maps to
 * the shared error body.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, typeof errorResponse> {
  return Object.fromEntries(codes.map((code) => [ERROR_STATUS[code], errorResponse]));
}

/**
 * What the routes that manage something of the account's (its keys, members,
 * spaces, webhooks, history) may answer: a bad request, no credential, the
 * plan's limit, a role that may not, a thing that is not there or clashes.
 */
export const resourceErrors = errorResponses(
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'PLAN_LIMIT_REACHED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
);
