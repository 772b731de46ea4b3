import { ERROR_STATUS, errorResponse, type ErrorCode } from '@engram/shared';

/**
 * The error answers a route documents (its OpenAPI `response` entries), named
 * by the codes it may give: each code's one status (`ERROR_STATUS`) maps to
 * the shared error body.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, typeof errorResponse> {
  return Object.fromEntries(codes.map((code) => [ERROR_STATUS[code], errorResponse]));
}
