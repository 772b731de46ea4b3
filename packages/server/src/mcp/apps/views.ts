import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps';

/**
 * The three MCP Apps views (docs/mcp-apps.md): each one self-contained HTML
 * document, built by `packages/web/mcp-apps/build.mjs` into the web app's
 * `dist/mcp-apps/`.
 */
export const VIEWS = {
  graph: {
    uri: 'ui://engram/graph',
    title: 'Engram graph',
    description: 'An explorable view of the knowledge graph a tool answered.',
  },
  entity: {
    uri: 'ui://engram/entity',
    title: 'Engram entity',
    description: 'One entity: its observations, relations and recent history, with Undo.',
  },
  duplicates: {
    uri: 'ui://engram/duplicates',
    title: 'Engram duplicates',
    description: 'Likely duplicate entities side by side, with Merge and Not the same.',
  },
} as const;

export type ViewName = keyof typeof VIEWS;

/**
 * No origin at all: a view reaches nothing over the network (it acts through
 * the host's bridge), loads nothing from elsewhere, frames nothing.
 */
export const VIEW_CSP: McpUiResourceCsp = {
  connectDomains: [],
  resourceDomains: [],
  frameDomains: [],
  baseUriDomains: [],
};

/** At most this many bytes a view may weigh (issue 61). */
export const VIEW_MAX_BYTES = 500 * 1024;

/** The web app's build beside this package (the server's own default, as app.ts's). */
const WEB_DIST = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

/** Said in place of a view that was not built (a checkout before `npm run build`). */
const notBuilt = (name: ViewName) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${VIEWS[name].title}</title>` +
  `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
  `<style>body{font:14px system-ui,sans-serif;margin:16px;color:#52525b}</style></head>` +
  `<body><p>This Engram view was not built on the server: run <code>npm run build</code>.</p></body></html>`;

const cache = new Map<string, string>();

/**
 * A view's HTML from the web app's build (`WEB_DIST_DIR` when set, as the web
 * app itself is served), read once per process; a missing build answers a
 * page saying so.
 */
export function viewHtml(name: ViewName, webDist = WEB_DIST): string {
  const file = join(webDist, 'mcp-apps', `${name}.html`);
  let html = cache.get(file);
  if (html === undefined) {
    try {
      html = readFileSync(file, 'utf8');
    } catch {
      // Not cached: a build made while the server runs is picked up.
      return notBuilt(name);
    }
    cache.set(file, html);
  }
  return html;
}
