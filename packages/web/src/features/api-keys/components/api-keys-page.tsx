import type { ApiKey, CreatedApiKey, RolledApiKey } from '@engram/shared';
import { KeyRound, Plus } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { ConnectAgentPanel } from '@/components/connect-agent/connect-agent-panel';
import { PageHeader } from '@/components/page-header';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { useApiKeys } from '../api/list-api-keys';
import { errorMessage, rollOf } from '../key-display';
import { useKeySecrets } from '../key-secrets';
import { ApiKeyCard } from './api-key-card';
import { CreateKeyDialog } from './create-key-dialog';
import { DeleteKeyDialog } from './delete-key-dialog';
import { NewKeyBanner, type NewKey } from './new-key-banner';
import { RollKeyDialog } from './roll-key-dialog';

/** API Keys (/api-keys, spec §2): create, reveal once, roll and delete the account's keys. */
export function ApiKeysPage() {
  const keys = useApiKeys();
  const secrets = useKeySecrets();
  const [creating, setCreating] = useState(false);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [newKey, setNewKey] = useState<(NewKey & { id: string }) | null>(null);

  function handleCreated(created: CreatedApiKey) {
    setCreating(false);
    setNewKey({ id: created.id, name: created.name, apiKey: created.apiKey });
  }

  function handleRolled({ newKey: successor, oldKey }: RolledApiKey) {
    setRolling(null);
    setNewKey({
      id: successor.id,
      name: successor.name,
      apiKey: successor.apiKey,
      previousKeyExpiresAt: oldKey.expiresAt,
    });
  }

  function handleDeleted(deleted: ApiKey) {
    setDeleting(null);
    // A banner for a key that no longer exists would invite copying a dead key.
    setNewKey((shown) => (shown?.id === deleted.id ? null : shown));
    toast.success('API key deleted');
  }

  const list = keys.data;
  return (
    <div className="grid gap-6">
      <title>API Keys · Engram</title>
      <PageHeader
        title="API Keys"
        description="Create and manage keys for programmatic access"
        actions={
          <Button onClick={() => setCreating(true)}>
            <Plus aria-hidden />
            Create API Key
          </Button>
        }
      />

      {newKey ? <NewKeyBanner newKey={newKey} onDismiss={() => setNewKey(null)} /> : null}

      {keys.isError ? (
        <Alert variant="error">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
            <span>{errorMessage(keys.error, 'Failed to load API keys')}</span>
            <button
              type="button"
              className="cursor-pointer font-medium underline underline-offset-4"
              onClick={() => void keys.refetch()}
            >
              Try again
            </button>
          </div>
        </Alert>
      ) : null}

      {keys.isPending ? (
        <Card
          role="status"
          className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
        >
          <Spinner />
          Loading API keys...
        </Card>
      ) : null}

      {list && list.length === 0 ? <EmptyState onCreate={() => setCreating(true)} /> : null}

      {list && list.length > 0 ? (
        <div className="grid gap-4">
          {list.map((key) => (
            <ApiKeyCard
              key={key.id}
              apiKey={key}
              secret={secrets[key.id]}
              roll={rollOf(key, list)}
              onRoll={setRolling}
              onDelete={setDeleting}
            />
          ))}
        </div>
      ) : null}

      {list ? <ConnectAgentPanel /> : null}

      <CreateKeyDialog open={creating} onOpenChange={setCreating} onCreated={handleCreated} />
      <RollKeyDialog apiKey={rolling} onClose={() => setRolling(null)} onRolled={handleRolled} />
      <DeleteKeyDialog
        apiKey={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={handleDeleted}
      />
    </div>
  );
}

function EmptyState({ onCreate }: { onCreate: () => void }) {
  return (
    <Card className="flex flex-col items-center px-6 py-12 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-primary-soft text-primary-soft-foreground">
        <KeyRound className="size-5" aria-hidden />
      </div>
      <h2 className="mt-4 text-base font-semibold">No API keys yet</h2>
      <p className="mt-1 max-w-sm text-sm text-muted-foreground">
        Create a key so your agents and scripts can read and write your knowledge graph over the
        REST API and MCP.
      </p>
      <Button className="mt-6" onClick={onCreate}>
        <Plus aria-hidden />
        Create Your First API Key
      </Button>
    </Card>
  );
}
