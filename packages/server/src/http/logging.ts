import {
  LogController,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Config } from '../config.js';

/** Query parameters that carry credentials (the WebSocket's `?api_key=`, tokens in links). */
const SECRET_PARAMS =
  /^(api_?key|apikey|key|token|access_token|auth|authorization|password|secret)$/i;

/** The URL with every credential-carrying query value replaced, so no log line holds a key. */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const parts = url
    .slice(query + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const rawName = equals === -1 ? part : part.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        // A badly encoded name is still matched as written.
      }
      return SECRET_PARAMS.test(name.trim()) ? `${rawName}=[REDACTED]` : part;
    });
  return `${url.slice(0, query)}?${parts.join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Fastify's logger: JSON in production, pretty in development (one line per
 * entry); request URLs with credential query values redacted, credential
 * headers never printed. Requests are logged by `OneLinePerRequest`.
 */
export function loggerOptions(
  config: Config,
  destination?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  if (config.LOG_LEVEL === 'silent') return false;
  const pretty = config.NODE_ENV === 'development' && !destination;
  return {
    level: config.LOG_LEVEL,
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.hostname,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    ...(destination ? { stream: destination } : {}),
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true },
          },
        }
      : {}),
  };
}

/**
 * Fastify's request log lines: instead of two multi-line entries per request
 * at info ("incoming request", "request completed"), one line at debug
 * (`GET /api/entities?limit=5 200 4 ms`), so the default level logs no
 * request unless it fails (the error handler logs server errors). Fastify's
 * other lines (a response stream that failed, a serializer error) stay.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) return super.requestCompleted(error, request, reply);
    const ms = Math.round(reply.elapsedTime);
    request.log.debug(`${request.method} ${redactUrl(request.url)} ${reply.statusCode} ${ms} ms`);
  }
}
