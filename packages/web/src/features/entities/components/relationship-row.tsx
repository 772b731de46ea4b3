import { typeLabel, type Relation } from '@engram/shared';
import { ArrowDownLeft, ArrowRight, ArrowUpRight } from 'lucide-react';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { formatDate } from '@/lib/format';
import { entityPath } from '../display';
import type { SelectedEntity } from './selected-entity-panel';
import { ValidityNote } from './validity-note';

/**
 * One relation: its type and direction, the entity at the other end and
 * when it was recorded; the row selects that entity, the arrow opens it.
 */
export function RelationshipRow({
  relation,
  outgoing,
  other,
  selected,
  onSelect,
}: {
  relation: Relation;
  outgoing: boolean;
  other: SelectedEntity;
  selected: boolean;
  onSelect: () => void;
}) {
  const name = other.name || 'Unknown';
  const DirectionIcon = outgoing ? ArrowUpRight : ArrowDownLeft;
  return (
    <li
      className={cn(
        'flex items-center gap-2 pr-2 transition-colors',
        selected ? 'bg-primary-soft/60' : 'hover:bg-muted/60',
      )}
      data-testid="relationship"
    >
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        className="flex min-w-0 flex-1 cursor-pointer flex-col gap-1.5 px-4 py-3 text-left outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset sm:flex-row sm:items-center sm:gap-3"
      >
        <span className="flex shrink-0 items-center gap-2">
          <DirectionIcon className="size-4 text-muted-foreground" aria-hidden />
          <span className="text-sm font-medium">{typeLabel(relation.type)}</span>
          <Badge variant={outgoing ? 'accent' : 'neutral'}>
            {outgoing ? 'Outgoing' : 'Incoming'}
          </Badge>
        </span>
        <span className="flex min-w-0 flex-1 items-center gap-2">
          <span className="min-w-0 truncate text-sm">{name}</span>
          <EntityTypeBadge type={other.type || 'unknown'} />
        </span>
        <span className="flex shrink-0 flex-col text-xs text-muted-foreground sm:items-end">
          <span>{formatDate(relation.createdAt)}</span>
          <ValidityNote of={relation} />
        </span>
      </button>
      <Button asChild variant="ghost" size="icon" className="size-8 shrink-0">
        <Link to={entityPath(other.id)} aria-label={`Go to ${name}`} title={`Go to ${name}`}>
          <ArrowRight aria-hidden />
        </Link>
      </Button>
    </li>
  );
}
