import type { Readable, Writable } from 'node:stream';
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { ObservedTransport } from './stdio.js';

export interface BridgeOptions {
  /** The running server's MCP endpoint, e.g. http://127.0.0.1:8787/mcp. */
  url: string;
  /** The API key (or session token) sent as the bearer credential. */
  credential: string;
  stdin?: Readable;
  stdout?: Writable;
}

/** The `data` of each event of a server-sent event stream. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer = (buffer + decoder.decode(chunk, { stream: true })).replace(/\r\n/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0 && data.join('').trim() !== '') yield data.join('\n');
    }
  }
}

/** Methods whose `Mcp-Name` header mirrors a body field (SEP-2243's standard request headers). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** An HTTP field value: plain when it is safe visible ASCII, else the MCP specification's base64 form. */
function fieldValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value);
  return plain && !(value.startsWith('=?base64?') && value.endsWith('?='))
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The standard headers a 2026-07-28 request carries besides its revision. */
function modernRequestHeaders(message: JSONRPCMessage): Record<string, string> {
  if (!isJSONRPCRequest(message)) return {};
  const headers: Record<string, string> = { 'mcp-method': message.method };
  const field = Object.hasOwn(NAME_FIELD, message.method) ? NAME_FIELD[message.method] : undefined;
  const name = field ? (message.params as Record<string, unknown> | undefined)?.[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = fieldValue(name);
  return headers;
}

function modernVersionOf(message: JSONRPCMessage): string | undefined {
  const params = (message as { params?: { _meta?: Record<string, unknown> } }).params;
  const version = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/**
 * Relays MCP between stdin/stdout and a running Engram server's `/mcp`
 * (Streamable HTTP), message for message, so a stdio agent works while
 * `engram serve` owns the embedded data folder. Both eras pass through:
 * 2026-07-28 messages carry their revision in `_meta` (sent as
 * `MCP-Protocol-Version`, listens stream back); a 2025-era connection gets
 * its `Mcp-Session-Id`, negotiated version and server-to-client GET stream.
 * Resolves when stdin closes (the session, if any, is ended first).
 */
export async function bridgeStdio(options: BridgeOptions): Promise<void> {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const stdio = new ObservedTransport(new StdioServerTransport(options.stdin, options.stdout), () =>
    ended(),
  );
  const inFlight = new Map<RequestId, AbortController>();
  const everything = new AbortController();
  let sessionId: string | undefined;
  let negotiated: string | undefined;
  let initializeId: RequestId | undefined;
  let streamOpen = false;

  const headers = (version: string | undefined, accept: string): Record<string, string> => ({
    authorization: `Bearer ${options.credential}`,
    accept,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(version ? { 'mcp-protocol-version': version } : {}),
  });

  const deliver = async (message: JSONRPCMessage) => {
    if (initializeId !== undefined && isJSONRPCResultResponse(message)) {
      if (message.id === initializeId) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === 'string') negotiated = version;
        initializeId = undefined;
      }
    }
    await stdio.send(message).catch(() => undefined);
  };

  /** Relays a JSON or SSE answer to stdout. */
  const relay = async (response: Response) => {
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream') && response.body) {
      for await (const data of sseData(response.body)) {
        await deliver(JSON.parse(data) as JSONRPCMessage);
      }
    } else if (type.includes('application/json')) {
      const body = (await response.json()) as JSONRPCMessage | JSONRPCMessage[];
      for (const message of Array.isArray(body) ? body : [body]) await deliver(message);
    } else {
      await response.body?.cancel();
    }
  };

  /** The 2025 era's server-to-client stream (resource updates), once the session is up. */
  const openStream = async () => {
    if (streamOpen || !sessionId) return;
    streamOpen = true;
    try {
      const response = await fetch(options.url, {
        headers: headers(negotiated, 'text/event-stream'),
        signal: everything.signal,
      });
      if (response.ok) await relay(response);
      else await response.body?.cancel();
    } catch {
      /* closed, or the server went away: requests still report their own failures */
    } finally {
      streamOpen = false;
    }
  };

  /** Answers a request the server could not (down, refused the key) with a JSON-RPC error. */
  const fail = async (message: JSONRPCMessage, reason: string) => {
    if (!isJSONRPCRequest(message)) return;
    await stdio
      .send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: reason } })
      .catch(() => undefined);
  };

  const forward = async (message: JSONRPCMessage) => {
    const request = isJSONRPCRequest(message);
    if (request && message.method === 'initialize') initializeId = message.id;
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) inFlight.get(id)?.abort();
    }
    const version = modernVersionOf(message);
    const controller = new AbortController();
    if (request) inFlight.set(message.id, controller);
    const abortAll = () => controller.abort();
    everything.signal.addEventListener('abort', abortAll, { once: true });
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          ...headers(version ?? negotiated, 'application/json, text/event-stream'),
          ...(version ? modernRequestHeaders(message) : {}),
          'content-type': 'application/json',
        },
        body: JSON.stringify(message),
        signal: controller.signal,
      });
      sessionId = response.headers.get('mcp-session-id') ?? sessionId;
      const type = response.headers.get('content-type') ?? '';
      if (response.ok || type.includes('text/event-stream')) {
        await relay(response);
      } else {
        const text = await response.text();
        let body: { id?: unknown; error?: unknown } | undefined;
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          /* not JSON */
        }
        if (body && typeof body.error === 'object' && body.id !== null && body.id !== undefined) {
          await deliver(body as JSONRPCMessage);
        } else {
          const said = typeof body?.error === 'string' ? body.error : JSON.stringify(body?.error);
          await fail(message, `Engram at ${options.url} answered ${response.status}: ${said}`);
        }
      }
      if (
        isJSONRPCNotification(message) &&
        message.method === 'notifications/initialized' &&
        sessionId
      ) {
        void openStream();
      }
    } catch (error) {
      if (!controller.signal.aborted) {
        await fail(message, `Cannot reach Engram at ${options.url}: ${(error as Error).message}`);
      }
    } finally {
      everything.signal.removeEventListener('abort', abortAll);
      if (request) inFlight.delete(message.id);
    }
  };

  stdio.onmessage = (message) => void forward(message);
  await stdio.start();
  await closed;
  everything.abort();
  if (sessionId) {
    await fetch(options.url, {
      method: 'DELETE',
      headers: headers(negotiated, 'application/json'),
    }).catch(() => undefined);
  }
}
