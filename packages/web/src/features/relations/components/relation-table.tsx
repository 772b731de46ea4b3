import { typeLabel, type Relation } from '@engram/shared';
import { Pencil, Trash2 } from 'lucide-react';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Badge } from '@/components/ui/badge';
import { ActionsMenu } from '@/components/actions-menu';
import { DropdownMenuItem, DropdownMenuSeparator } from '@/components/ui/dropdown-menu';
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeadRow,
  TableRow,
} from '@/components/ui/table';
import { formatDate } from '../display';

interface RelationTableProps {
  relations: Relation[];
  /** Left out (with onDelete) for a role that may not change the graph: no Actions column. */
  onEdit?: ((relation: Relation) => void) | undefined;
  onDelete?: ((relation: Relation) => void) | undefined;
}

/**
 * The relations (docs/product.md, The signed-in app): From Entity, Relation, To Entity, Created,
 * Actions (Edit, Delete; none for a viewer). On a phone each row stacks into a small card of its own.
 */
export function RelationTable({ relations, onEdit, onDelete }: RelationTableProps) {
  const actions = onEdit !== undefined || onDelete !== undefined;
  return (
    <Table className="block sm:table">
      <TableHeadRow className="hidden sm:table-header-group">
        <TableHead>From Entity</TableHead>
        <TableHead>Relation</TableHead>
        <TableHead>To Entity</TableHead>
        <TableHead>Created</TableHead>
        {actions ? <TableHead className="w-16 text-right">Actions</TableHead> : null}
      </TableHeadRow>
      <TableBody className="block sm:table-row-group">
        {relations.map((relation) => (
          <TableRow
            key={relation.id}
            className="grid grid-cols-[minmax(0,1fr)_auto] gap-x-2 gap-y-1.5 px-4 py-3 sm:table-row sm:p-0"
          >
            <TableCell className="col-start-1 row-start-1 block p-0 sm:table-cell sm:px-4 sm:py-3">
              <EntityEnd label="From" entity={relation.fromEntity} />
            </TableCell>
            <TableCell className="col-start-1 row-start-2 block p-0 pl-11 sm:table-cell sm:px-4 sm:py-3">
              <Badge variant="accent" title={relation.type}>
                {typeLabel(relation.type)}
              </Badge>
            </TableCell>
            <TableCell className="col-start-1 row-start-3 block p-0 sm:table-cell sm:px-4 sm:py-3">
              <EntityEnd label="To" entity={relation.toEntity} />
            </TableCell>
            <TableCell className="col-start-1 row-start-4 block p-0 pl-11 text-xs whitespace-nowrap text-muted-foreground sm:table-cell sm:px-4 sm:py-3 sm:text-sm">
              <time dateTime={relation.createdAt}>{formatDate(relation.createdAt)}</time>
            </TableCell>
            {actions ? (
              <TableCell className="col-start-2 row-span-4 row-start-1 block p-0 text-right sm:table-cell sm:px-4 sm:py-3">
                <ActionsMenu
                  label={`Actions for ${relation.fromEntity.name} ${relation.type} ${relation.toEntity.name}`}
                >
                  {onEdit ? (
                    <DropdownMenuItem onSelect={() => onEdit(relation)}>
                      <Pencil aria-hidden />
                      Edit Relation
                    </DropdownMenuItem>
                  ) : null}
                  {onEdit && onDelete ? <DropdownMenuSeparator /> : null}
                  {onDelete ? (
                    <DropdownMenuItem destructive onSelect={() => onDelete(relation)}>
                      <Trash2 aria-hidden />
                      Delete Relation
                    </DropdownMenuItem>
                  ) : null}
                </ActionsMenu>
              </TableCell>
            ) : null}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function EntityEnd({ label, entity }: { label: string; entity: Relation['fromEntity'] }) {
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
      <span className="w-9 shrink-0 text-xs text-muted-foreground sm:hidden">{label}</span>
      <Link
        to={`/entities/${encodeURIComponent(entity.id)}`}
        className="min-w-0 font-medium wrap-anywhere hover:underline hover:underline-offset-4"
      >
        {entity.name}
      </Link>
      <EntityTypeBadge type={entity.type} className="hidden md:inline-flex" />
    </div>
  );
}
