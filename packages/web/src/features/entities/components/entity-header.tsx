import type { Entity } from '@engram/shared';
import { Calendar, FileText } from 'lucide-react';
import type { ReactNode } from 'react';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { RefreshButton } from '@/components/refresh-button';
import { formatDate, pluralize } from '@/lib/format';
import { EntityAuthorsNote } from './entity-authors';

/**
 * The entity page's title and facts (type, observations, creation, who made
 * it what it is), with its actions (Edit, Add observation, Delete: none for a
 * viewer) and Refresh.
 */
export function EntityHeader({
  entity,
  refreshing,
  onRefresh,
  actions,
}: {
  entity: Entity;
  refreshing: boolean;
  onRefresh: () => void;
  actions?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight wrap-anywhere">{entity.name}</h1>
        <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-2 text-sm text-muted-foreground">
          <EntityTypeBadge type={entity.type} />
          <span className="flex items-center gap-1.5">
            <FileText className="size-4" aria-hidden />
            {pluralize(entity.observationsCount, 'observation')}
          </span>
          <span className="flex items-center gap-1.5">
            <Calendar className="size-4" aria-hidden />
            Created {formatDate(entity.createdAt)}
          </span>
        </div>
        <EntityAuthorsNote entityId={entity.id} />
      </div>
      <div className="flex flex-wrap items-center gap-2 self-start sm:justify-end">
        {actions}
        <RefreshButton onClick={onRefresh} disabled={refreshing} spinning={refreshing} />
      </div>
    </div>
  );
}
