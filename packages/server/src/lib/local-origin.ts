import { isIP } from 'node:net';

/** Bind addresses that listen on every interface: this machine reaches them on loopback. */
const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '']);

/**
 * The origin this machine reaches a server bound to HOST:PORT at: the one the
 * start banner prints and, without PUBLIC_URL, the OAuth issuer
 * (docs/connect.md), so a person signed in at the printed address is signed
 * in where OAuth sends the browser. A wildcard bind and `localhost` are
 * reached at `127.0.0.1`; any other address is itself (an IPv6 address in
 * brackets: `::1` binds IPv6 alone, where 127.0.0.1 would not connect); a
 * host name is kept as written. Pure: it reads no socket and no request.
 */
export function localOrigin({ HOST, PORT }: { HOST: string; PORT: number }): string {
  const host = HOST.trim().toLowerCase();
  const bracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const name =
    WILDCARDS.has(bracketed) || bracketed === 'localhost'
      ? '127.0.0.1'
      : isIP(bracketed) === 6
        ? `[${bracketed}]`
        : bracketed;
  const origin = `http://${name}:${PORT}`;
  // As URL parsing writes it (port 80 left out): clients compare the issuer as a string.
  return URL.canParse(origin) ? new URL(origin).origin : origin;
}
