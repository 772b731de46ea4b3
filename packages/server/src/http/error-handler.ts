import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '@engram/shared';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, fromDatabaseError } from '../lib/errors.js';

/** Fastify's own client errors by status (a body too large, a media type it cannot read…). */
const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query' };

/** One handler turns every failure into `{ error, code, details? }` (docs/product.md, Calls). */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof AppError ? error : fromDatabaseError(error);
    if (known) {
      if (known.retryAfterSeconds !== undefined) {
        void reply.header('retry-after', String(known.retryAfterSeconds));
      }
      return reply.status(known.status).send(known.toBody());
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = error.validationContext ?? 'body';
      const details = error.validation.map((issue) => {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        return {
          field: [CONTEXT_NAMES[context] ?? context, path].filter(Boolean).join('.'),
          message: issue.message ?? 'Invalid value',
        };
      });
      const first = details[0];
      const body: ErrorBody = {
        error: first ? `Invalid ${first.field}: ${first.message}` : 'Invalid request',
        code: 'VALIDATION_ERROR',
        details,
      };
      return reply.status(400).send(body);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: malformed JSON, unsupported media type, body
      // too large… Each code has one status: one without a code of its own is a 400.
      const code = CODE_BY_STATUS.get(status) ?? 'VALIDATION_ERROR';
      const body: ErrorBody = { error: error.message, code };
      return reply.status(ERROR_STATUS[code]).send(body);
    }
    request.log.error({ err: error }, 'request failed');
    const body: ErrorBody = {
      error: 'Internal server error',
      code: 'INTERNAL_ERROR',
    };
    return reply.status(500).send(body);
  });
}

/**
 * Errors the router raises before any route runs (a path too long or badly
 * encoded): no route can name such a path, so it is a 404 in the usual body.
 */
export function frameworkErrors(
  _error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
) {
  const body: ErrorBody = { error: 'Not found', code: 'NOT_FOUND' };
  void reply.status(404).send(body);
}
