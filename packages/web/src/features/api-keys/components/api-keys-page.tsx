import type { ApiKey, CreatedApiKey, RolledApiKey } from '@engram/shared';
import { KeyRound, Plus } from 'lucide-react';
import { Link } from 'react-router';
import { useState } from 'react';
import { toast } from 'sonner';
import { ConnectAgentPanel } from '@/components/connect-agent/connect-agent-panel';
import { EmptyState } from '@/components/empty-state';
import { ListLoading } from '@/components/list-page';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Page } from '@/components/page';
import { RoleNote } from '@/components/role-note';
import { Button } from '@/components/ui/button';
import { useCan, VIEWER_NO_KEYS } from '@/lib/account';
import { useSession } from '@/lib/session';
import { useKeyLimit } from '../api/get-key-limit';
import { useApiKeys } from '../api/list-api-keys';
import { errorMessage, keyLimitNote, keyLimitReached, mayRoll, rollOf } from '../key-display';
import { useKeySecrets } from '../key-secrets';
import { ApiKeyCard } from './api-key-card';
import { CreateKeyDialog } from './create-key-dialog';
import { DeleteKeyDialog } from './delete-key-dialog';
import { NewKeyBanner, type NewKey } from './new-key-banner';
import { RollKeyDialog } from './roll-key-dialog';

/**
 * API Keys (/api-keys; docs/product.md, The signed-in app): create, reveal once, roll and delete
 * the account's keys (a member's own; every key for admins and owners, who
 * roll only the keys they made). A
 * viewer manages none (the server answers 403): a note instead, and the list
 * is not asked for.
 */
export function ApiKeysPage() {
  const canManage = useCan('manageOwnKeys');
  const { user } = useSession();
  const keys = useApiKeys({ enabled: canManage });
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
  const plan = useKeyLimit({ enabled: canManage });
  // Said before the form is filled in: the plan has no room for another key.
  const full = keyLimitReached(list, plan.data?.limit);
  return (
    <Page
      title="API Keys"
      description="Create and manage keys for programmatic access"
      actions={
        canManage ? (
          <Button
            disabled={full}
            aria-describedby={full ? 'api-key-limit-note' : undefined}
            onClick={() => setCreating(true)}
          >
            <Plus aria-hidden />
            Create API Key
          </Button>
        ) : null
      }
    >
      {canManage ? null : <RoleNote testId="api-keys-viewer-note">{VIEWER_NO_KEYS}</RoleNote>}

      {full && plan.data ? (
        <p
          id="api-key-limit-note"
          data-testid="api-key-limit-note"
          className="-mt-3 text-sm text-muted-foreground sm:text-right"
        >
          {keyLimitNote(plan.data.limit, plan.data.planName)}{' '}
          <Link to="/billing" className="font-medium text-primary hover:underline">
            Compare plans
          </Link>
        </p>
      ) : null}

      {newKey ? <NewKeyBanner newKey={newKey} onDismiss={() => setNewKey(null)} /> : null}

      {keys.isError ? (
        <LoadErrorAlert onRetry={() => void keys.refetch()}>
          {errorMessage(keys.error, 'Failed to load API keys')}
        </LoadErrorAlert>
      ) : null}

      {canManage && keys.isPending ? <ListLoading>Loading API keys...</ListLoading> : null}

      {list && list.length === 0 ? (
        <EmptyState
          icon={KeyRound}
          title="No API keys yet"
          description="Create a key so your agents and scripts can read and write your knowledge graph over the REST API and MCP."
          actions={
            <Button onClick={() => setCreating(true)}>
              <Plus aria-hidden />
              Create Your First API Key
            </Button>
          }
        />
      ) : null}

      {list && list.length > 0 ? (
        <div className="grid gap-4">
          {list.map((key) => (
            <ApiKeyCard
              key={key.id}
              apiKey={key}
              secret={secrets[key.id]}
              roll={rollOf(key, list)}
              onRoll={mayRoll(key, user?.id) ? setRolling : undefined}
              onDelete={setDeleting}
            />
          ))}
        </div>
      ) : null}

      {list || !canManage ? (
        <ConnectAgentPanel
          justCreated={
            canManage ? (newKey ? { name: newKey.name, apiKey: newKey.apiKey } : null) : undefined
          }
        />
      ) : null}

      <CreateKeyDialog open={creating} onOpenChange={setCreating} onCreated={handleCreated} />
      <RollKeyDialog apiKey={rolling} onClose={() => setRolling(null)} onRolled={handleRolled} />
      <DeleteKeyDialog
        apiKey={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={handleDeleted}
      />
    </Page>
  );
}
