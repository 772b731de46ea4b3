import { Plug } from 'lucide-react';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { LoadingBlock } from '@/components/ui/spinner';
import { formatDate } from '@/lib/format';
import type { OAuthGrant } from '@engram/shared';
import { useGrants } from '../api/list-grants';
import { AppLogo } from '@/components/app-logo';
import { AppSiteLink } from '@/components/app-site-link';
import { lastUsedLabel, scopeLabel } from '../grant-display';
import { RevokeGrantDialog } from './revoke-grant-dialog';

/**
 * The apps a person allowed to reach their memory over MCP (docs/product.md,
 * Settings): what each may do, when it was connected and last used, and a
 * revoke that signs it out at once.
 */
export function ConnectedAppsCard() {
  const titleId = useId();
  const grants = useGrants();
  const [revoking, setRevoking] = useState<OAuthGrant | null>(null);

  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle id={titleId}>Connected apps</CardTitle>
        <CardDescription>
          Chat apps and editors you allowed to use your memory over MCP.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {grants.isPending ? (
          <LoadingBlock label="Loading connected apps…" />
        ) : grants.isError ? (
          <LoadErrorAlert onRetry={() => void grants.refetch()}>
            Failed to load connected apps
          </LoadErrorAlert>
        ) : grants.data.length === 0 ? (
          <EmptyState
            icon={Plug}
            frame="none"
            className="rounded-lg border border-dashed border-border px-4 py-8"
            title="No apps connected"
            description="Apps you connect to Engram's MCP endpoint (Claude, ChatGPT, VS Code, Cursor) appear here."
            actions={
              <Button variant="outline" size="sm" asChild>
                <Link to="/dashboard#connect">How to connect an app</Link>
              </Button>
            }
          />
        ) : (
          <ul className="divide-y divide-border rounded-lg border border-border">
            {grants.data.map((grant) => (
              <GrantRow key={grant.id} grant={grant} onRevoke={() => setRevoking(grant)} />
            ))}
          </ul>
        )}
      </CardContent>
      <RevokeGrantDialog grant={revoking} onClose={() => setRevoking(null)} />
    </Card>
  );
}

function GrantRow({ grant, onRevoke }: { grant: OAuthGrant; onRevoke: () => void }) {
  return (
    <li className="flex gap-3 p-3 sm:p-4" aria-label={grant.client.name}>
      <AppLogo logoUri={grant.client.logoUri} />
      {/* On a phone the button goes under the details, so a long name keeps the width. */}
      <div className="flex min-w-0 flex-1 flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="grid min-w-0 gap-1">
          <p className="text-sm font-medium wrap-break-word">{grant.client.name}</p>
          <div className="flex flex-wrap items-center gap-1.5">
            {grant.scopes.map((scope) => (
              <Badge key={scope} variant={scope === 'memory:write' ? 'accent' : 'neutral'}>
                {scopeLabel(scope)}
              </Badge>
            ))}
            <AppSiteLink
              uri={grant.client.clientUri}
              className="ml-1 text-xs text-muted-foreground wrap-anywhere hover:text-foreground hover:underline"
            />
          </div>
          <p className="text-xs text-muted-foreground">
            <span className="whitespace-nowrap">Connected {formatDate(grant.createdAt)}</span> ·{' '}
            <span className="whitespace-nowrap">Last used {lastUsedLabel(grant.lastUsedAt)}</span>
          </p>
        </div>
        <Button variant="outline" size="sm" className="self-start" onClick={onRevoke}>
          Revoke
        </Button>
      </div>
    </li>
  );
}
