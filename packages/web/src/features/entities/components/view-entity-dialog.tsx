import type { Entity } from '@engram/shared';
import { Pencil } from 'lucide-react';
import type { ReactNode } from 'react';
import { CollapsibleText } from '@/components/collapsible-text';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Button } from '@/components/ui/button';
import { Dialog, DialogActions, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { useEntity } from '@/lib/api/entities';
import { formatCount, formatDateTime, observationCountLabel } from '../display';

interface ViewEntityDialogProps {
  /** The entity to show; the dialog is open while one is set. */
  entity: Entity | null;
  onClose: () => void;
  /** Left out for a role that may not change the graph (a viewer): no Edit Entity. */
  onEdit?: ((entity: Entity) => void) | undefined;
}

/**
 * View Details (docs/product.md, The signed-in app): type, created and updated times, id, metadata
 * pretty-printed, and every observation with its time in a scrolling list.
 * It follows the entity live: an agent's change shows while it is open.
 */
export function ViewEntityDialog({ entity, onClose, onEdit }: ViewEntityDialogProps) {
  return (
    <Dialog open={entity !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className="max-h-[calc(100dvh-2rem)] overflow-y-auto sm:max-w-xl">
        {entity ? <EntityDetails listed={entity} onEdit={onEdit} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function EntityDetails({
  listed,
  onEdit,
}: {
  listed: Entity;
  onEdit: ViewEntityDialogProps['onEdit'];
}) {
  const detail = useEntity(listed.id);
  const entity = detail.data ?? listed;
  const hasMetadata = Object.keys(entity.metadata).length > 0;
  return (
    <>
      <DialogHeading
        title={entity.name}
        titleClassName="wrap-anywhere"
        description="Entity details"
      />

      <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
        <Detail label="Type">
          <EntityTypeBadge type={entity.type} />
        </Detail>
        <Detail label="Observations">{formatCount(entity.observationsCount)}</Detail>
        <Detail label="Created">{formatDateTime(entity.createdAt)}</Detail>
        <Detail label="Updated">{formatDateTime(entity.updatedAt)}</Detail>
        <Detail label="ID" className="sm:col-span-2">
          <code className="font-mono text-[13px] break-all">{entity.id}</code>
        </Detail>
      </dl>

      <section className="grid gap-2" aria-label="Metadata">
        <h3 className="text-sm font-medium">Metadata</h3>
        {hasMetadata ? (
          <pre className="max-h-48 overflow-auto rounded-lg border border-border bg-muted px-3 py-2 font-mono text-[13px] leading-5">
            {JSON.stringify(entity.metadata, null, 2)}
          </pre>
        ) : (
          <p className="text-sm text-muted-foreground">No metadata</p>
        )}
      </section>

      <section className="grid gap-2" aria-label="Observations">
        <h3 className="text-sm font-medium">
          Observations{' '}
          <span className="font-normal text-muted-foreground">
            ({observationCountLabel(entity.observationsCount)})
          </span>
        </h3>
        {entity.observations.length ? (
          <ul className="max-h-64 divide-y divide-border overflow-y-auto rounded-lg border border-border">
            {entity.observations.map((observation) => (
              <li key={observation.id} className="px-3 py-2">
                <CollapsibleText text={observation.content} className="text-sm" />
                <p className="mt-1 text-xs text-muted-foreground">
                  {formatDateTime(observation.createdAt)}
                </p>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-muted-foreground">No observations</p>
        )}
        {entity.observationsTruncated ? (
          <p className="text-xs text-muted-foreground">
            Showing the first {formatCount(entity.observations.length)} of{' '}
            {formatCount(entity.observationsCount)}.
          </p>
        ) : null}
      </section>

      <DialogActions closeLabel="Close">
        {onEdit ? (
          <Button onClick={() => onEdit(entity)}>
            <Pencil aria-hidden />
            Edit Entity
          </Button>
        ) : null}
      </DialogActions>
    </>
  );
}

function Detail({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className}>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-1">{children}</dd>
    </div>
  );
}
