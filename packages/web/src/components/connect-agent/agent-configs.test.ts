import { describe, expect, it } from 'vitest';
import { agentConfigs, KEY_PLACEHOLDER, mcpUrlOf, urlBreakParts } from './agent-configs';

const URL = 'https://engram.example.com/mcp';

describe('agent configurations', () => {
  it("puts /mcp on the app's origin", () => {
    expect(mcpUrlOf('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/mcp');
    expect(mcpUrlOf('https://engram.example.com/')).toBe(URL);
  });

  it("names a space other than default in the address, and in engram mcp's arguments", () => {
    expect(mcpUrlOf('https://engram.example.com', 'default')).toBe(URL);
    expect(mcpUrlOf('https://engram.example.com', 'user-42')).toBe(`${URL}/user-42`);
    const stdio = agentConfigs(`${URL}/user-42`, 'user-42').find((c) => c.client === 'stdio')!;
    expect(JSON.parse(stdio.snippet).mcpServers.engram.args).toEqual([
      '/path/to/engram/packages/server/dist/main.js',
      'mcp',
      '--space',
      'user-42',
    ]);
  });

  it('gives Claude Code one command with the URL and the key as a bearer header', () => {
    const [claude] = agentConfigs(URL);
    expect(claude!.snippet).toBe(
      `claude mcp add --transport http engram ${URL} --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`,
    );
  });

  it('gives Cursor and VS Code their own mcp.json shapes, as valid JSON', () => {
    const byClient = Object.fromEntries(agentConfigs(URL).map((c) => [c.client, c.snippet]));
    const headers = { Authorization: `Bearer ${KEY_PLACEHOLDER}` };
    expect(JSON.parse(byClient['cursor']!)).toEqual({
      mcpServers: { engram: { url: URL, headers } },
    });
    expect(JSON.parse(byClient['vscode']!)).toEqual({
      servers: { engram: { type: 'http', url: URL, headers } },
    });
  });

  it('starts `engram mcp` over stdio with the key in ENGRAM_API_KEY', () => {
    const stdio = agentConfigs(URL).find((c) => c.client === 'stdio')!;
    const { engram } = JSON.parse(stdio.snippet).mcpServers;
    expect(engram.command).toBe('node');
    expect(engram.args.at(-1)).toBe('mcp');
    expect(engram.args[0]).toMatch(/packages\/server\/dist\/main\.js$/);
    expect(engram.env.ENGRAM_API_KEY).toBe(KEY_PLACEHOLDER);
  });

  it('never holds anything that looks like a real key', () => {
    for (const { snippet } of agentConfigs(URL)) expect(snippet).not.toMatch(/eng_key_/);
  });

  it('puts a key just created in every snippet when asked, the placeholder otherwise', () => {
    const key = 'eng_key_0123456789';
    for (const config of agentConfigs(URL, 'default', key)) {
      expect(config.snippet).toContain(key);
      expect(config.snippet).not.toContain(KEY_PLACEHOLDER);
    }
    // The stdio tab's paths stay placeholders: the server's folders are never shown.
    const stdio = agentConfigs(URL, 'default', key).find((c) => c.client === 'stdio')!;
    expect(JSON.parse(stdio.snippet).mcpServers.engram.env).toEqual({
      ENGRAM_API_KEY: key,
      DATA_DIR: '/path/to/engram/data',
    });
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
