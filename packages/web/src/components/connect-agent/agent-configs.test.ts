import { describe, expect, it } from 'vitest';
import {
  agentConfigs,
  KEY_PLACEHOLDER,
  mcpUrlOf,
  urlBreakParts,
  type AgentClient,
} from './agent-configs';

const URL = 'https://engram.example.com/mcp';

const byClient = (configs: ReturnType<typeof agentConfigs>, client: AgentClient) =>
  configs.find((config) => config.client === client)!;

describe('agent configurations', () => {
  it("puts /mcp on the app's origin", () => {
    expect(mcpUrlOf('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/mcp');
    expect(mcpUrlOf('https://engram.example.com/')).toBe(URL);
  });

  it("names a space other than default in the address, and in engram mcp's arguments", () => {
    expect(mcpUrlOf('https://engram.example.com', 'default')).toBe(URL);
    expect(mcpUrlOf('https://engram.example.com', 'user-42')).toBe(`${URL}/user-42`);
    const stdio = byClient(agentConfigs(`${URL}/user-42`, { space: 'user-42' }), 'stdio');
    expect(JSON.parse(stdio.snippet).mcpServers.engram.args).toEqual([
      '/path/to/engram/packages/server/dist/main.js',
      'mcp',
      '--space',
      'user-42',
    ]);
  });

  it('offers the five clients in this order, with these labels', () => {
    expect(agentConfigs(URL).map(({ client, label }) => [client, label])).toEqual([
      ['claude-code', 'Claude Code'],
      ['claude-desktop', 'Claude Desktop'],
      ['cursor', 'Cursor'],
      ['vscode', 'VS Code'],
      ['stdio', 'stdio'],
    ]);
  });

  it('gives Claude Code one command with the URL and the key as a bearer header', () => {
    const [claude] = agentConfigs(URL);
    expect(claude!.snippet).toBe(
      `claude mcp add --transport http engram ${URL} --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`,
    );
  });

  it("gives Claude Desktop's config file `npx mcp-remote <url>`: OAuth, no key", () => {
    for (const url of [URL, 'http://127.0.0.1:8787/mcp/user-42']) {
      const desktop = byClient(
        agentConfigs(url, { apiKey: 'eng_key_0123456789' }),
        'claude-desktop',
      );
      expect(JSON.parse(desktop.snippet)).toEqual({
        mcpServers: { engram: { command: 'npx', args: ['-y', 'mcp-remote', url] } },
      });
      expect(desktop.auth).toBe('oauth');
      expect(desktop.where).toMatch(/claude_desktop_config\.json/);
      expect(desktop.snippet).not.toMatch(/eng_key_|api-key|Authorization/i);
    }
  });

  it('gives Cursor and VS Code their own mcp.json shapes, as valid JSON', () => {
    const snippets = Object.fromEntries(agentConfigs(URL).map((c) => [c.client, c.snippet]));
    const headers = { Authorization: `Bearer ${KEY_PLACEHOLDER}` };
    expect(JSON.parse(snippets['cursor']!)).toEqual({
      mcpServers: { engram: { url: URL, headers } },
    });
    expect(JSON.parse(snippets['vscode']!)).toEqual({
      servers: { engram: { type: 'http', url: URL, headers } },
    });
  });

  it('starts `engram mcp` over stdio with the key in ENGRAM_API_KEY', () => {
    const stdio = byClient(agentConfigs(URL), 'stdio');
    const { engram } = JSON.parse(stdio.snippet).mcpServers;
    expect(engram.command).toBe('node');
    expect(engram.args.at(-1)).toBe('mcp');
    expect(engram.args[0]).toMatch(/packages\/server\/dist\/main\.js$/);
    expect(engram.env.ENGRAM_API_KEY).toBe(KEY_PLACEHOLDER);
  });

  it('never holds anything that looks like a real key', () => {
    for (const { snippet } of agentConfigs(URL)) expect(snippet).not.toMatch(/eng_key_/);
  });

  it('puts a key just created in every snippet that takes one when asked, the placeholder otherwise', () => {
    const key = 'eng_key_0123456789';
    const configs = agentConfigs(URL, { apiKey: key });
    expect(configs.filter((config) => config.auth === 'key')).toHaveLength(4);
    for (const config of configs.filter((c) => c.auth === 'key')) {
      expect(config.snippet).toContain(key);
      expect(config.snippet).not.toContain(KEY_PLACEHOLDER);
    }
    // Without the server's folders (another machine, or PUBLIC_URL) the stdio paths stay placeholders.
    expect(JSON.parse(byClient(configs, 'stdio').snippet).mcpServers.engram.env).toEqual({
      ENGRAM_API_KEY: key,
      DATA_DIR: '/path/to/engram/data',
    });
  });

  it("fills the stdio snippet's folders in when the server gives them (its own machine)", () => {
    const install = { installDir: '/home/ada/engram/', dataDir: '/home/ada/engram/data' };
    const stdio = byClient(agentConfigs(URL, { space: 'user-42', install }), 'stdio');
    expect(JSON.parse(stdio.snippet).mcpServers.engram).toEqual({
      command: 'node',
      args: ['/home/ada/engram/packages/server/dist/main.js', 'mcp', '--space', 'user-42'],
      env: { ENGRAM_API_KEY: KEY_PLACEHOLDER, DATA_DIR: '/home/ada/engram/data' },
    });
    expect(stdio.snippet).not.toContain('/path/to/engram');
    expect(stdio.where).not.toContain('/path/to/engram');
    // On PostgreSQL there is no data folder: `engram mcp` needs the server's DATABASE_URL.
    const postgres = byClient(
      agentConfigs(URL, { install: { installDir: '/srv/engram', dataDir: null } }),
      'stdio',
    );
    const { engram } = JSON.parse(postgres.snippet).mcpServers;
    expect(engram.args[0]).toBe('/srv/engram/packages/server/dist/main.js');
    expect(Object.keys(engram.env)).toEqual(['ENGRAM_API_KEY', 'DATABASE_URL']);
  });

  it('splits an address where it may wrap: after each slash, before ? & #', () => {
    expect(urlBreakParts('http://127.0.0.1:8787/mcp')).toEqual([
      'http://',
      '127.0.0.1:8787/',
      'mcp',
    ]);
    expect(urlBreakParts('https://engram.example.com/mcp/my-space?x=1&y=2')).toEqual([
      'https://',
      'engram.example.com/',
      'mcp/',
      'my-space',
      '?x=1',
      '&y=2',
    ]);
    expect(urlBreakParts('/mcp').join('')).toBe('/mcp');
  });
});
