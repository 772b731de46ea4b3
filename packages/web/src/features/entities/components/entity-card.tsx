import type { Entity } from '@engram/shared';
import { CalendarDays, Eye, MessageSquareText, Pencil, Trash2 } from 'lucide-react';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { ActionsMenu } from '@/components/actions-menu';
import { Card } from '@/components/ui/card';
import { DropdownMenuItem, DropdownMenuSeparator } from '@/components/ui/dropdown-menu';
import { entityPath, formatDate, metadataPreview, observationCountLabel } from '../display';

interface EntityCardProps {
  entity: Entity;
  onView: (entity: Entity) => void;
  /** Left out for a role that may not change the graph (a viewer): no Edit in the menu. */
  onEdit?: ((entity: Entity) => void) | undefined;
  /** Left out likewise: no Delete. */
  onDelete?: ((entity: Entity) => void) | undefined;
}

/**
 * One entity in the grid (docs/product.md, The signed-in app): name, type badge, observation count,
 * creation date and up to 3 metadata pairs. The whole card opens
 * /entities/{id} (its name is the link, stretched over the card); the menu
 * sits above that link.
 */
export function EntityCard({ entity, onView, onEdit, onDelete }: EntityCardProps) {
  const titleId = `entity-${entity.id}-name`;
  const pairs = metadataPreview(entity.metadata);
  return (
    <Card
      role="article"
      aria-labelledby={titleId}
      className="relative flex min-w-0 flex-col gap-3 p-4 transition-colors focus-within:border-ring hover:border-zinc-300 dark:hover:border-zinc-600"
    >
      <div className="flex items-start justify-between gap-2">
        <div className="grid min-w-0 gap-1.5">
          <h3 id={titleId} className="min-w-0 text-sm leading-5 font-semibold wrap-anywhere">
            <Link
              to={entityPath(entity.id)}
              className="outline-none after:absolute after:inset-0 after:rounded-lg after:content-['']"
            >
              {entity.name}
            </Link>
          </h3>
          <EntityTypeBadge type={entity.type} />
        </div>
        <ActionsMenu
          label={`Actions for ${entity.name}`}
          triggerClassName="relative z-10 -mt-1 -mr-1 size-8 text-muted-foreground"
        >
          <DropdownMenuItem onSelect={() => onView(entity)}>
            <Eye aria-hidden />
            View Details
          </DropdownMenuItem>
          {onEdit ? (
            <DropdownMenuItem onSelect={() => onEdit(entity)}>
              <Pencil aria-hidden />
              Edit Entity
            </DropdownMenuItem>
          ) : null}
          {onDelete ? (
            <>
              <DropdownMenuSeparator />
              <DropdownMenuItem destructive onSelect={() => onDelete(entity)}>
                <Trash2 aria-hidden />
                Delete Entity
              </DropdownMenuItem>
            </>
          ) : null}
        </ActionsMenu>
      </div>

      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted-foreground">
        <span className="inline-flex items-center gap-1.5">
          <MessageSquareText className="size-3.5" aria-hidden />
          {observationCountLabel(entity.observationsCount)}
        </span>
        <span className="inline-flex items-center gap-1.5">
          <CalendarDays className="size-3.5" aria-hidden />
          <time dateTime={entity.createdAt}>{formatDate(entity.createdAt)}</time>
        </span>
      </div>

      {pairs.length ? (
        <dl className="grid gap-1 border-t border-border pt-3 text-xs" aria-label="Metadata">
          {pairs.map(({ key, value }) => (
            <div key={key} className="flex min-w-0 gap-1.5">
              <dt className="shrink-0 font-medium text-muted-foreground">{key}:</dt>
              <dd className="min-w-0 truncate" title={value}>
                {value}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
    </Card>
  );
}
