import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

/** A tool's answer as a view reads it: the structured content, and its text (which says when it was cut). */
export interface ToolAnswer {
  structuredContent?: Record<string, unknown> | undefined;
  content?: { type: string; text?: string }[] | undefined;
  isError?: boolean | undefined;
}

/** Whether this connection may change the memory, and why not (`view_access`). */
export interface Access {
  canWrite: boolean;
  reason: string | null;
}

function applyHost(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
}

/** The text of an answer (the error a failed call says, or the note a cut answer ends with). */
export function textOf(answer: ToolAnswer): string {
  return (answer.content ?? [])
    .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('\n');
}

/** The note a cut answer's text ends with ("truncated: …"), or undefined. */
export function truncationOf(answer: ToolAnswer): string | undefined {
  const match = /\n\n\((truncated[^]*)\)\s*$/.exec(textOf(answer));
  return match?.[1];
}

/**
 * Connects the view to its host: `onResult` gets the tool result the view
 * was opened with (and any later one); every call to Engram goes through
 * the host's bridge, with the connection's credential.
 */
export function startView(
  name: string,
  handlers: {
    onResult(answer: ToolAnswer): void;
    onInput?(args: Record<string, unknown>): void;
  },
) {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  app.ontoolinput = (params) => handlers.onInput?.(params.arguments ?? {});
  app.ontoolresult = (params) => handlers.onResult(params as ToolAnswer);
  app.onhostcontextchanged = (context) => applyHost(context);
  const connected = app.connect().then(() => applyHost(app.getHostContext()));

  /** Calls an Engram tool; resolves with its structured content, rejects with its error text. */
  async function call<T>(tool: string, args: Record<string, unknown> = {}): Promise<T> {
    await connected;
    const answer = (await app.callServerTool({ name: tool, arguments: args })) as ToolAnswer;
    if (answer.isError) throw new Error(textOf(answer) || `${tool} failed`);
    return (answer.structuredContent ?? {}) as T;
  }

  /** Whether this connection may write; asked once. */
  let access: Promise<Access> | undefined;
  const writeAccess = () =>
    (access ??= call<Access>('view_access').catch(() => ({
      canWrite: false,
      reason: 'Could not tell whether this connection may change the memory.',
    })));

  return { app, call, writeAccess, connected };
}

export type View = ReturnType<typeof startView>;
