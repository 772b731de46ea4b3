import {
  getUiCapability,
  registerAppResource,
  registerAppTool,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type McpServer,
} from '@modelcontextprotocol/server';
import { HISTORY_PAGE_DEFAULT } from '@engram/shared';
import type { GraphService } from '../../features/graph/index.js';
import type { DuplicatesService } from '../../features/duplicates/index.js';
import type { HistoryService } from '../../features/history/index.js';
import type { Operation } from '../../features/usage/index.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { notFound } from '../../lib/errors.js';
import { LINKED_TOOLS, VIEW_TOOLS } from './tools.js';
import { VIEW_CSP, viewHtml, VIEWS, type ViewName } from './views.js';

export { VIEW_CSP, VIEW_MAX_BYTES, VIEWS } from './views.js';
export { LINKED_TOOLS, VIEW_TOOLS } from './tools.js';

/** What the views' tools run on: the memory server's services, its credential and its `run`. */
export interface AppsContext {
  graph: Pick<GraphService, 'listEntities' | 'getEntity' | 'openNodes'>;
  history: Pick<HistoryService, 'entityHistory' | 'revertChange'>;
  duplicates: Pick<DuplicatesService, 'dismissDuplicate'>;
  auth: SpaceAuth;
  /** The memory server's tool runner: refuses what the credential may not, meters, maps errors. */
  run: (operation: Operation, fn: () => Promise<CallToolResult>) => Promise<CallToolResult>;
  /** What the credential lacks to write, said as the write tools say it; undefined when it may. */
  writeRefusal: () => string | undefined;
  /** The web app's build the views are read from (`WEB_DIST_DIR`); the package's own when absent. */
  webDistDir?: string | undefined;
}

const asResult = (structured: Record<string, unknown>, text = JSON.stringify(structured)) => ({
  content: [{ type: 'text' as const, text }],
  structuredContent: structured,
});

/**
 * Shows `item` (a registered tool or resource) only to a client that
 * declared the MCP Apps extension: the SDK's list and call handlers read
 * `enabled` on each request, and a client's capabilities are those of its
 * `initialize` (2025 era) or of the request's envelope (2026-07-28 over
 * HTTP, where every request has its own server).
 */
function onlyFor(item: object, declared: () => boolean): void {
  Object.defineProperty(item, 'enabled', {
    configurable: true,
    enumerable: true,
    get: declared,
    set: () => undefined,
  });
}

/**
 * Engram as an MCP App (docs/mcp-apps.md): the three `ui://` views, the
 * `_meta.ui.resourceUri` links of the tools that open them, and the tools only
 * a view calls. A client that does not declare `io.modelcontextprotocol/ui`
 * sees none of it: today's tools, results and resources, unchanged.
 *
 * Call once, right after the server is made and before its tools are
 * registered: the linked tools are decorated as they register.
 */
export function installMcpApps(server: McpServer, ctx: AppsContext): void {
  const { auth } = ctx;
  // A 2026-07-28 stdio connection keeps one server whose requests each carry
  // the client's capabilities in their envelope: the latest one's are read
  // as each request arrives (HTTP's per-request servers are seeded with them).
  let enveloped = false;
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
      const declaredThere = meta?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
      if (declaredThere !== undefined) enveloped = getUiCapability(declaredThere) !== undefined;
      deliver?.call(transport, message, extra);
    };
  };
  const declared = () =>
    enveloped || getUiCapability(server.server.getClientCapabilities()) !== undefined;

  // The linked tools: registered with the extension's helper, their link listed
  // only to a client that declared the extension (otherwise `_meta` is as today).
  const register = server.registerTool.bind(server);
  const linking = (
    name: string,
    config: { _meta?: Record<string, unknown> },
    cb: unknown,
  ): ReturnType<McpServer['registerTool']> => {
    const view = LINKED_TOOLS[name];
    if (!view)
      return (register as (...args: unknown[]) => ReturnType<typeof register>)(name, config, cb);
    const plain = config._meta;
    const tool = registerAppTool(
      { registerTool: register } as Pick<McpServer, 'registerTool'>,
      name,
      { ...config, _meta: { ...plain, ui: { resourceUri: VIEWS[view].uri } } },
      cb as never,
    );
    const linked = tool._meta;
    Object.defineProperty(tool, '_meta', {
      configurable: true,
      enumerable: true,
      get: () => (declared() ? linked : plain),
      set: () => undefined,
    });
    return tool;
  };
  server.registerTool = linking as McpServer['registerTool'];

  for (const [name, view] of Object.entries(VIEWS) as [ViewName, (typeof VIEWS)[ViewName]][]) {
    const meta = { ui: { csp: VIEW_CSP, prefersBorder: false } };
    const resource = registerAppResource(
      server,
      view.title,
      view.uri,
      { title: view.title, description: view.description, _meta: meta },
      async () => ({
        contents: [
          {
            uri: view.uri,
            mimeType: RESOURCE_MIME_TYPE,
            text: viewHtml(name, ctx.webDistDir),
            _meta: meta,
          },
        ],
      }),
    );
    onlyFor(resource, declared);
  }

  /** The entity a name (or alias) names, with its id, aliases, metadata and dated observations. */
  async function entityNamed(name: string) {
    const opened = await ctx.graph.openNodes(auth, [name]);
    const canonical = opened.entities[0]?.name;
    if (canonical === undefined) throw notFound('Entity');
    const listed = await ctx.graph.listEntities(auth, { query: canonical, limit: 50, offset: 0 });
    const found = listed.entities.find((entity) => entity.name === canonical);
    if (!found) throw notFound('Entity');
    return { entity: await ctx.graph.getEntity(auth, found.id), opened };
  }

  const tools = [
    registerAppTool(server, 'view_access', VIEW_TOOLS.view_access, async () => {
      const reason = ctx.writeRefusal() ?? null;
      return asResult({ canWrite: reason === null, reason });
    }),
    registerAppTool(server, 'entity_details', VIEW_TOOLS.entity_details, ({ name }) =>
      ctx.run({ type: 'query', resource: 'entity' }, async () => {
        const { entity, opened } = await entityNamed(name);
        const touching = opened.relations.filter(
          (relation) => relation.from === entity.name || relation.to === entity.name,
        );
        return asResult({
          entity,
          relations: touching,
          ...(opened.truncated ? { truncated: opened.truncated } : {}),
        });
      }),
    ),
    registerAppTool(
      server,
      'entity_history',
      VIEW_TOOLS.entity_history,
      ({ name, limit, cursor }) =>
        ctx.run({ type: 'query', resource: 'entity' }, async () => {
          const { entity } = await entityNamed(name);
          const page = await ctx.history.entityHistory(auth, entity.id, {
            limit: limit ?? HISTORY_PAGE_DEFAULT,
            cursor,
          });
          return asResult(page);
        }),
    ),
    registerAppTool(server, 'revert_change', VIEW_TOOLS.revert_change, ({ seq }) =>
      ctx.run({ type: 'update', resource: 'graph' }, async () => {
        const answer = await ctx.history.revertChange(auth, seq);
        return asResult(
          answer,
          `Reverted the call of seq:${answer.reverted.callSeq} (${answer.reverted.changes} changes)`,
        );
      }),
    ),
    registerAppTool(server, 'dismiss_duplicate', VIEW_TOOLS.dismiss_duplicate, ({ entityIds }) =>
      ctx.run({ type: 'update', resource: 'entity' }, async () => {
        await ctx.duplicates.dismissDuplicate(auth, entityIds);
        return asResult({ success: true }, 'The pair will not be proposed again.');
      }),
    ),
  ];
  for (const tool of tools) onlyFor(tool, declared);
}
