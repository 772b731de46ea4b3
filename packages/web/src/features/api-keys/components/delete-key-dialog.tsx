import type { ApiKey } from '@engram/shared';
import { Ban, ChartNoAxesColumn, History, PlugZap, Undo2 } from 'lucide-react';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { Alert } from '@/components/ui/alert';
import { useDeleteApiKey } from '../api/delete-api-key';
import { errorMessage } from '../key-display';
import { ConsequenceList } from './consequence-list';

interface DeleteKeyDialogProps {
  /** The key to delete; the dialog is open while one is set. */
  apiKey: ApiKey | null;
  onClose: () => void;
  onDeleted: (key: ApiKey) => void;
}

export function DeleteKeyDialog({ apiKey, onClose, onDeleted }: DeleteKeyDialogProps) {
  const deleteKey = useDeleteApiKey();
  return (
    <ConfirmDeleteDialog
      open={apiKey !== null}
      onClose={() => {
        // The next key asked about starts without this one's error.
        deleteKey.reset();
        onClose();
      }}
      title="Delete API Key"
      question={
        <>
          Are you sure you want to delete{' '}
          <span className="font-medium text-foreground">{apiKey?.name}</span>?
        </>
      }
      pending={deleteKey.isPending}
      action="Delete Key"
      onConfirm={() => {
        if (!apiKey) return;
        deleteKey.mutate(apiKey.id, {
          onSuccess: () => {
            deleteKey.reset();
            onDeleted(apiKey);
          },
        });
      }}
    >
      <ConsequenceList
        label="What deleting does"
        items={[
          {
            icon: PlugZap,
            text: 'Agents, scripts and MCP clients using this key stop working immediately.',
          },
          { icon: Ban, text: 'Every request made with it is refused from now on.' },
          {
            icon: History,
            text: 'If it replaced an older key that still works, that older key stops working too.',
          },
          {
            icon: ChartNoAxesColumn,
            text: 'Its request count and active days are deleted with it.',
          },
          { icon: Undo2, text: 'This cannot be undone.' },
        ]}
      />
      {deleteKey.isError ? (
        <Alert variant="error">{errorMessage(deleteKey.error, 'Failed to delete API key')}</Alert>
      ) : null}
    </ConfirmDeleteDialog>
  );
}
