import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDatabase, startupBanner } from './banner.js';

describe('startup banner', () => {
  it('names the web app, /docs, /mcp and the embedded database with its folder', () => {
    const banner = startupBanner({
      url: 'http://127.0.0.1:8787',
      dataDir: './data',
      logLevel: 'info',
    });
    expect(banner.split('\n')).toEqual([
      'Engram is running',
      '  Web app   http://127.0.0.1:8787/',
      '  API docs  http://127.0.0.1:8787/docs',
      '  MCP       http://127.0.0.1:8787/mcp',
      `  Database  PGlite (embedded), data folder ${resolve('./data')}`,
      'Log: warnings and errors only; LOG_LEVEL=debug adds one line per request.',
      'Ctrl+C stops.',
    ]);
  });

  it('drops the hint about quiet logging when requests are logged', () => {
    const banner = startupBanner({
      url: 'https://engram.example.com/',
      dataDir: './data',
      logLevel: 'debug',
    });
    expect(banner).toContain('  Web app   https://engram.example.com/\n');
    expect(banner).toContain('  MCP       https://engram.example.com/mcp\n');
    expect(banner).not.toContain('LOG_LEVEL');
  });

  it('names a PostgreSQL database by host and name, never with its credentials', () => {
    const described = describeDatabase(
      'postgres://engram:s3cret-pass@db.example.com:5433/memory?sslmode=require',
      './data',
    );
    expect(described).toBe('PostgreSQL memory on db.example.com:5433');
    expect(describeDatabase('postgresql://u:p@localhost/engram', './data')).toBe(
      'PostgreSQL engram on localhost',
    );
    const banner = startupBanner({
      url: 'http://127.0.0.1:8787',
      databaseUrl: 'postgres://engram:s3cret-pass@db.example.com/memory',
      dataDir: './data',
      logLevel: 'info',
    });
    expect(banner).toContain('  Database  PostgreSQL memory on db.example.com\n');
    expect(banner).not.toMatch(/s3cret|engram:|data folder/);
  });
});
