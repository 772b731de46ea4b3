import { DEFAULT_SPACE_SLUG } from '@engram/shared';
/**
 * What a person pastes into an MCP client to give it this server's memory.
 * The key is a placeholder unless the person asks for the key they have just
 * created on the same screen ("Include my key" on API Keys): the panel
 * otherwise never prints a secret (a new key is shown once on the API Keys
 * screen, the personal key behind Show in Settings).
 */

export const KEY_PLACEHOLDER = '<your-api-key>';

export type AgentClient = 'claude-code' | 'cursor' | 'vscode' | 'stdio';

export interface AgentConfig {
  client: AgentClient;
  /** The segment's label. */
  label: string;
  /** One line above the snippet: where it goes. */
  where: string;
  snippet: string;
}

/**
 * The MCP address of a space on the origin the app was opened at (the server
 * serves both; PUBLIC_URL's origin when set): `/mcp` for the default space,
 * `/mcp/<slug>` for another.
 */
export function mcpUrlOf(origin: string, space = DEFAULT_SPACE_SLUG): string {
  const path = space === DEFAULT_SPACE_SLUG ? '/mcp' : `/mcp/${encodeURIComponent(space)}`;
  return `${origin.replace(/\/+$/, '')}${path}`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * The address split where a line may wrap: after each `/` (after `//` as a
 * whole), before `?`, `#` and `&`, so a narrow screen breaks `…/mcp` at a
 * separator, never mid-word.
 */
export function urlBreakParts(url: string): string[] {
  return url.split(/(?<=\/)(?!\/)|(?=[?#&])/).filter((part) => part !== '');
}

/**
 * One snippet per client. The remote ones send the key as a bearer token (`/mcp`
 * also reads `X-API-Key`); the stdio one starts `engram mcp` on this machine,
 * which relays to the running server when it owns the data folder.
 */
export function agentConfigs(
  mcpUrl: string,
  space = DEFAULT_SPACE_SLUG,
  apiKey: string = KEY_PLACEHOLDER,
): AgentConfig[] {
  const spaceArgs = space === DEFAULT_SPACE_SLUG ? [] : ['--space', space];
  const authorization = `Bearer ${apiKey}`;
  return [
    {
      client: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal:',
      snippet: `claude mcp add --transport http engram ${mcpUrl} --header "Authorization: ${authorization}"`,
    },
    {
      client: 'cursor',
      label: 'Cursor',
      where: 'Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project):',
      snippet: json({
        mcpServers: { engram: { url: mcpUrl, headers: { Authorization: authorization } } },
      }),
    },
    {
      client: 'vscode',
      label: 'VS Code',
      where: 'Add to .vscode/mcp.json in your workspace:',
      snippet: json({
        servers: {
          engram: { type: 'http', url: mcpUrl, headers: { Authorization: authorization } },
        },
      }),
    },
    {
      client: 'stdio',
      label: 'stdio',
      where:
        'On the machine Engram runs on (e.g. claude_desktop_config.json); /path/to/engram is the Engram folder:',
      snippet: json({
        mcpServers: {
          engram: {
            command: 'node',
            args: ['/path/to/engram/packages/server/dist/main.js', 'mcp', ...spaceArgs],
            env: { ENGRAM_API_KEY: apiKey, DATA_DIR: '/path/to/engram/data' },
          },
        },
      }),
    },
  ];
}
