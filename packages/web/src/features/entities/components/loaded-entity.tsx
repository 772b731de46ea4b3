import { FilePlus, Pencil, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { useCan } from '@/lib/account';
import { AddObservationDialog } from './add-observation-dialog';
import { DeleteEntityDialog } from './delete-entity-dialog';
import { EntityBackLink } from './entity-back-link';
import { EntityFormDialog, type EntityFormDialogState } from './entity-form-dialog';
import { EntityHeader } from './entity-header';
import { EntityHistory } from './entity-history';
import { EntityOverview, type EntityReads } from './entity-overview';
import { entityTabOf, EntityTabs, type EntityTab } from './entity-tabs';
import type { SelectedEntity } from './selected-entity-panel';

/**
 * The entity page once the entity is read: its header, then the Overview or
 * History tab. The selection lives here, so it outlasts a visit to History.
 * Edit, Add observation and Delete use the Entities screen's dialogs and
 * rules, and a viewer is offered none of them (lib/account/role-rules.ts);
 * after a delete the page goes to /entities, where the notice offers Undo.
 */
export function LoadedEntity({
  refreshing,
  onRefresh,
  ...reads
}: EntityReads & { refreshing: boolean; onRefresh: () => void }) {
  const { entity } = reads;
  const [selected, setSelected] = useState<SelectedEntity | null>(null);
  // The tab is in the address (?tab=history), so a reload or a shared link opens it.
  const [searchParams, setSearchParams] = useSearchParams();
  const tab = entityTabOf(searchParams);
  const canEdit = useCan('editGraph');
  const navigate = useNavigate();
  const [formDialog, setFormDialog] = useState<EntityFormDialogState>(null);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState(false);

  function showTab(next: EntityTab) {
    const search = new URLSearchParams(searchParams);
    if (next === 'overview') search.delete('tab');
    else search.set('tab', next);
    setSearchParams(search, { replace: true });
  }

  return (
    <div className="grid gap-6">
      <title>{`${entity.name} · Engram`}</title>
      <EntityBackLink />
      <EntityHeader
        entity={entity}
        refreshing={refreshing}
        onRefresh={onRefresh}
        actions={
          canEdit ? (
            <>
              <Button variant="outline" onClick={() => setFormDialog({ mode: 'edit', entity })}>
                <Pencil aria-hidden />
                Edit
              </Button>
              <Button variant="outline" onClick={() => setAdding(true)}>
                <FilePlus aria-hidden />
                Add observation
              </Button>
              <Button
                variant="outline"
                className="text-destructive hover:text-destructive"
                onClick={() => setDeleting(true)}
              >
                <Trash2 aria-hidden />
                Delete
              </Button>
            </>
          ) : null
        }
      />
      <EntityTabs tab={tab} onChange={showTab} />
      {tab === 'history' ? (
        <div role="tabpanel" id="entity-tab-history" aria-labelledby="entity-tab-history-tab">
          <EntityHistory entityId={entity.id} />
        </div>
      ) : (
        <EntityOverview {...reads} selected={selected} onSelect={setSelected} />
      )}
      {canEdit ? (
        <>
          <EntityFormDialog state={formDialog} onClose={() => setFormDialog(null)} />
          <AddObservationDialog entity={entity} open={adding} onClose={() => setAdding(false)} />
          <DeleteEntityDialog
            entity={deleting ? entity : null}
            onClose={() => setDeleting(false)}
            onDeleted={() => void navigate('/entities')}
          />
        </>
      ) : null}
    </div>
  );
}
