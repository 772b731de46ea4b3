import { resolve } from 'node:path';

export interface BannerFacts {
  /** Where people open the server: PUBLIC_URL, else the address it listens on. */
  url: string;
  databaseUrl?: string | undefined;
  dataDir: string;
  logLevel: string;
}

/** The database in use, never with its user name or password. */
export function describeDatabase(databaseUrl: string | undefined, dataDir: string): string {
  if (!databaseUrl) return `PGlite (embedded), data folder ${resolve(dataDir)}`;
  try {
    const url = new URL(databaseUrl);
    const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
    return url.host ? `PostgreSQL ${name} on ${url.host}` : `PostgreSQL ${name}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** The few lines `engram serve` prints once it listens: where everything is. */
export function startupBanner({ url, databaseUrl, dataDir, logLevel }: BannerFacts): string {
  const base = url.replace(/\/+$/, '');
  const lines = [
    'Engram is running',
    `  Web app   ${base}/`,
    `  API docs  ${base}/docs`,
    `  MCP       ${base}/mcp`,
    `  Database  ${describeDatabase(databaseUrl, dataDir)}`,
  ];
  if (logLevel !== 'debug' && logLevel !== 'trace') {
    lines.push('Log: warnings and errors only; LOG_LEVEL=debug adds one line per request.');
  }
  lines.push('Ctrl+C stops.');
  return lines.join('\n');
}
