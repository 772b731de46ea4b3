import { DEFAULT_SPACE_SLUG, type LocalInstall } from '@engram/shared';
/**
 * What a person pastes into an MCP client to give it this server's memory.
 * The key is a placeholder unless the person asks for the key they have just
 * created on the same screen ("Include my key" on API Keys): the panel
 * otherwise never prints a secret (a new key is shown once on the API Keys
 * screen, the personal key behind Show in Settings). Claude Desktop's file
 * holds no key at all: `mcp-remote` signs in through the browser (OAuth).
 */

export const KEY_PLACEHOLDER = '<your-api-key>';

/** The stdio snippet's placeholders, left as they are unless the server says where it is. */
export const INSTALL_PLACEHOLDER = '/path/to/engram';
export const DATA_DIR_PLACEHOLDER = `${INSTALL_PLACEHOLDER}/data`;
/** The server's entry point under the Engram folder. */
const SERVER_MAIN = 'packages/server/dist/main.js';

export type AgentClient = 'claude-code' | 'claude-desktop' | 'cursor' | 'vscode' | 'stdio';

export interface AgentConfig {
  client: AgentClient;
  /** The segment's label. */
  label: string;
  /** One line above the snippet: where it goes. */
  where: string;
  snippet: string;
  /** How the client is let in: an API key in the snippet, or OAuth in the browser (no key). */
  auth: 'key' | 'oauth';
}

export interface AgentConfigOptions {
  /** The space on screen: `engram mcp` names any but the default one. */
  space?: string;
  /** The key the snippets hold (the placeholder unless a key just created is included). */
  apiKey?: string;
  /**
   * Where Engram is on this machine (GET /api/connect, given only on the
   * server's own machine without PUBLIC_URL): fills in the stdio snippet's
   * paths; null keeps the placeholders.
   */
  install?: LocalInstall | null;
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
 * also reads `X-API-Key`); Claude Desktop's config file starts `mcp-remote`,
 * which speaks stdio to the app and OAuth to the server (the consent screen
 * in the browser, no key); the stdio one starts `engram mcp` on this
 * machine, which relays to the running server when it owns the data folder.
 */
export function agentConfigs(
  mcpUrl: string,
  { space = DEFAULT_SPACE_SLUG, apiKey = KEY_PLACEHOLDER, install = null }: AgentConfigOptions = {},
): AgentConfig[] {
  const spaceArgs = space === DEFAULT_SPACE_SLUG ? [] : ['--space', space];
  const authorization = `Bearer ${apiKey}`;
  const installDir = install?.installDir.replace(/[\\/]+$/, '') ?? INSTALL_PLACEHOLDER;
  // The embedded database's folder; on PostgreSQL `engram mcp` needs the server's DATABASE_URL.
  const database =
    install && install.dataDir === null
      ? { DATABASE_URL: '<the DATABASE_URL engram serve uses>' }
      : { DATA_DIR: install?.dataDir ?? DATA_DIR_PLACEHOLDER };
  return [
    {
      client: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal:',
      snippet: `claude mcp add --transport http engram ${mcpUrl} --header "Authorization: ${authorization}"`,
      auth: 'key',
    },
    {
      client: 'claude-desktop',
      label: 'Claude Desktop',
      where:
        'Add to claude_desktop_config.json (Settings → Developer → Edit Config) and restart Claude; your browser opens to sign in and allow access:',
      snippet: json({
        mcpServers: { engram: { command: 'npx', args: ['-y', 'mcp-remote', mcpUrl] } },
      }),
      auth: 'oauth',
    },
    {
      client: 'cursor',
      label: 'Cursor',
      where: 'Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project):',
      snippet: json({
        mcpServers: { engram: { url: mcpUrl, headers: { Authorization: authorization } } },
      }),
      auth: 'key',
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
      auth: 'key',
    },
    {
      client: 'stdio',
      label: 'stdio',
      where: install
        ? 'On this machine, where Engram runs (e.g. claude_desktop_config.json):'
        : `On the machine Engram runs on (e.g. claude_desktop_config.json); ${INSTALL_PLACEHOLDER} is the Engram folder:`,
      snippet: json({
        mcpServers: {
          engram: {
            command: 'node',
            args: [`${installDir}/${SERVER_MAIN}`, 'mcp', ...spaceArgs],
            env: { ENGRAM_API_KEY: apiKey, ...database },
          },
        },
      }),
      auth: 'key',
    },
  ];
}
