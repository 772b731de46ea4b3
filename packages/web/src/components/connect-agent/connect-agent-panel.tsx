import { Plug } from 'lucide-react';
import { Fragment, useId, useState } from 'react';
import { Link } from 'react-router';
import { CopyButton } from '@/components/copy-button';
import { Card } from '@/components/ui/card';
import { SegmentedControl } from '@/components/ui/segmented-control';
import { useLocalInstall } from '@/lib/api/connect';
import { cn } from '@/lib/cn';
import { useSpaceSlug } from '@/lib/space';
import {
  agentConfigs,
  KEY_PLACEHOLDER,
  mcpUrlOf,
  urlBreakParts,
  type AgentClient,
} from './agent-configs';

const INLINE_CODE = 'rounded bg-muted px-1 py-0.5 font-mono text-[12px] text-foreground';
const CHECKBOX = 'size-4 accent-[var(--color-primary)]';

/** A key created on the same screen, which the snippets may hold instead of the placeholder. */
export interface JustCreatedKey {
  name: string;
  apiKey: string;
}

interface ConnectAgentPanelProps {
  className?: string;
  /**
   * The API Keys screen passes the key it has just created (null when none):
   * an "Include my key" toggle, off at first, puts it in the snippets.
   * Left out (the dashboard): no toggle.
   */
  justCreated?: JustCreatedKey | null;
}

/** An address that wraps at its separators on a narrow screen, never mid-word. */
export function BreakableUrl({ url }: { url: string }) {
  return urlBreakParts(url).map((part, index) => (
    <Fragment key={index}>
      {index > 0 ? <wbr /> : null}
      {part}
    </Fragment>
  ));
}

/**
 * How to give an AI agent this memory: the server's MCP address and a
 * ready-to-paste configuration per common client. Shown on the dashboard and
 * the API Keys screen.
 */
export function ConnectAgentPanel({ className, justCreated }: ConnectAgentPanelProps) {
  const titleId = useId();
  const includeId = useId();
  const [client, setClient] = useState<AgentClient>('claude-code');
  // The key the toggle was turned on for: a newer key starts unticked again.
  const [includedKey, setIncludedKey] = useState<string | null>(null);
  const included = justCreated != null && includedKey === justCreated.apiKey;
  // The space on screen ("All spaces" on the dashboard reads as the default one).
  const space = useSpaceSlug();
  const mcpUrl = mcpUrlOf(window.location.origin, space);
  // The stdio snippet's folders: only on the server's own machine, without PUBLIC_URL.
  const install = useLocalInstall();
  const configs = agentConfigs(mcpUrl, {
    space,
    apiKey: included ? justCreated.apiKey : KEY_PLACEHOLDER,
    install,
  });
  const config = configs.find((candidate) => candidate.client === client) ?? configs[0]!;
  // Claude Desktop's file holds no key: it signs in through the browser.
  const takesKey = config.auth === 'key';

  return (
    // min-w-0: a long line scrolls inside its code block instead of widening the page.
    <Card role="region" aria-labelledby={titleId} className={cn('min-w-0 p-4 sm:p-5', className)}>
      <div className="flex items-start gap-3">
        <div className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary-soft text-primary-soft-foreground">
          <Plug className="size-4" aria-hidden />
        </div>
        <div className="min-w-0">
          <h2 id={titleId} className="text-base leading-6 font-semibold">
            Connect an agent
          </h2>
          <p className="text-sm text-muted-foreground">
            Agents read and write this memory over the Model Context Protocol (MCP).
          </p>
        </div>
      </div>

      <div className="mt-4 grid min-w-0 gap-4">
        <div className="flex min-w-0 items-center gap-2 sm:max-w-xl">
          <span className="shrink-0 text-xs font-medium text-muted-foreground">MCP URL</span>
          {/* Wrapped at its separators, not cut: the whole address stays readable on a phone. */}
          <code
            data-testid="mcp-url"
            className="min-w-0 flex-1 rounded-md border border-border bg-muted px-2.5 py-1 font-mono text-[13px] leading-5 wrap-anywhere"
          >
            <BreakableUrl url={mcpUrl} />
          </code>
          <CopyButton value={mcpUrl} label="Copy MCP URL" className="size-8" />
        </div>

        <p className="text-sm leading-5 text-muted-foreground">
          Claude, ChatGPT, VS Code and Cursor: add{' '}
          <code className={cn(INLINE_CODE, 'wrap-anywhere')}>
            <BreakableUrl url={mcpUrl} />
          </code>{' '}
          as a remote MCP server; you&apos;ll be asked to sign in and allow access. Or pick your
          client for a configuration to paste:
        </p>

        <div className="grid min-w-0 gap-2">
          {/*
            One line from 640 px up; on a phone the five wrap into two full rows
            (each segment grows to fill its row), so every choice stays in view.
          */}
          <SegmentedControl
            aria-label="MCP client"
            value={client}
            onValueChange={setClient}
            options={configs.map(({ client: value, label }) => ({ value, label }))}
            className="flex flex-wrap whitespace-nowrap *:grow *:justify-center *:px-2 *:text-[13px] sm:inline-flex sm:flex-nowrap sm:justify-self-start sm:*:grow-0 sm:*:px-3 sm:*:text-sm"
          />
          {justCreated === undefined ? null : (
            <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 text-sm">
              <label
                htmlFor={includeId}
                className={cn(
                  'inline-flex items-center gap-2',
                  justCreated && takesKey
                    ? 'cursor-pointer'
                    : 'cursor-not-allowed text-muted-foreground',
                )}
              >
                <input
                  id={includeId}
                  type="checkbox"
                  className={CHECKBOX}
                  disabled={!justCreated || !takesKey}
                  checked={included && takesKey}
                  onChange={(event) =>
                    setIncludedKey(event.target.checked ? (justCreated?.apiKey ?? null) : null)
                  }
                  aria-describedby={`${includeId}-hint`}
                />
                Include my key
              </label>
              <span id={`${includeId}-hint`} className="min-w-0 text-xs text-muted-foreground">
                {!takesKey ? (
                  `${config.label} signs in through your browser: no key goes in its file.`
                ) : justCreated ? (
                  <>
                    Puts <span className="font-medium text-foreground">{justCreated.name}</span> in
                    the snippet; keep it out of shared files.
                  </>
                ) : (
                  'Create a key on this page to put it in the snippet.'
                )}
              </span>
            </div>
          )}
          <div className="flex min-w-0 items-end justify-between gap-3">
            <p className="min-w-0 text-xs text-muted-foreground">{config.where}</p>
            <CopyButton
              // A new client's snippet starts uncopied.
              key={`${config.client}-${included ? 'key' : 'placeholder'}`}
              data-testid="copy-agent-config"
              value={config.snippet}
              label="Copy"
              showLabel
              className="h-7 shrink-0 px-2.5 text-xs"
            />
          </div>
          <pre
            data-testid="agent-config"
            className="max-w-full min-w-0 overflow-x-auto rounded-md border border-border bg-muted px-3 py-2.5 font-mono text-[12.5px] leading-5"
          >
            <code>{config.snippet}</code>
          </pre>
        </div>

        {takesKey ? (
          <p className="text-xs leading-5 text-muted-foreground">
            Replace <code className={INLINE_CODE}>{KEY_PLACEHOLDER}</code> with a key from{' '}
            <Link to="/api-keys" className="font-medium text-primary hover:underline">
              API Keys
            </Link>{' '}
            (shown in full once, when created; one per agent lets you roll or delete each alone) or
            with your personal key from{' '}
            <Link to="/settings" className="font-medium text-primary hover:underline">
              Settings
            </Link>
            , which acts as you. <code className={INLINE_CODE}>/mcp</code> and the REST API read the
            key from <code className={INLINE_CODE}>Authorization: Bearer</code> or{' '}
            <code className={INLINE_CODE}>X-API-Key</code>.
          </p>
        ) : (
          <p className="text-xs leading-5 text-muted-foreground">
            No key in this file: <code className={INLINE_CODE}>npx</code> (it comes with Node.js)
            runs <code className={INLINE_CODE}>mcp-remote</code>, which opens Engram&apos;s sign-in
            and consent screen in your browser the first time and keeps its tokens in{' '}
            <code className={INLINE_CODE}>~/.mcp-auth</code>.{' '}
            <Link to="/settings" className="font-medium text-primary hover:underline">
              Settings
            </Link>{' '}
            → Connected apps lists it and disconnects it.
          </p>
        )}
      </div>
    </Card>
  );
}
