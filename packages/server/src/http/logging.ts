import type { FastifyServerOptions } from 'fastify';
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
 * Fastify's logger: JSON in production, pretty in development; request URLs
 * with credential query values redacted, credential headers never printed.
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
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } }
      : {}),
  };
}
