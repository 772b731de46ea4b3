import type { ApiKey } from '@engram/shared';
import { Ban, ChartNoAxesColumn, History, PlugZap, Undo2 } from 'lucide-react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
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
  return (
    <Dialog open={apiKey !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        {apiKey ? <DeleteKeyForm apiKey={apiKey} onDeleted={onDeleted} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function DeleteKeyForm({
  apiKey,
  onDeleted,
}: {
  apiKey: ApiKey;
  onDeleted: DeleteKeyDialogProps['onDeleted'];
}) {
  const deleteKey = useDeleteApiKey();
  return (
    <>
      <DialogHeader>
        <DialogTitle>Delete API Key</DialogTitle>
        <DialogDescription>
          Are you sure you want to delete{' '}
          <span className="font-medium text-foreground">{apiKey.name}</span>?
        </DialogDescription>
      </DialogHeader>
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
      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button
          variant="destructive"
          disabled={deleteKey.isPending}
          onClick={() => deleteKey.mutate(apiKey.id, { onSuccess: () => onDeleted(apiKey) })}
        >
          {deleteKey.isPending ? <Spinner /> : null}
          Delete Key
        </Button>
      </DialogFooter>
    </>
  );
}
