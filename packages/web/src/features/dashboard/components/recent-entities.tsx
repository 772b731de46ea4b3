import type { AnalyticsSummary } from '@engram/shared';
import { RECENT_ENTITIES_MAX } from '@engram/shared';
import { Boxes } from 'lucide-react';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Card, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatDate } from '../usage-rules';
import { CardList } from './card-list';

/** Up to 5, each with name, type and creation date; 'No entities yet'. */
export function RecentEntities({ entities }: { entities: AnalyticsSummary['recentEntities'] }) {
  const shown = entities.slice(0, RECENT_ENTITIES_MAX);
  return (
    <Card className="flex flex-col">
      <CardHeader className="pb-3">
        <CardTitle>Recent Entities</CardTitle>
        <CardDescription>The latest additions to your graph</CardDescription>
      </CardHeader>
      <CardList items={shown} label="Recent entities" icon={Boxes} empty="No entities yet">
        {(entity) => (
          <li key={entity.id} className="flex items-center gap-3 py-1.5 text-sm">
            <div className="min-w-0 flex-1">
              <Link
                to={`/entities/${entity.id}`}
                className="block truncate font-medium hover:text-primary hover:underline hover:underline-offset-4"
              >
                {entity.name}
              </Link>
              <time dateTime={entity.created_at} className="text-xs text-muted-foreground">
                {formatDate(entity.created_at)}
              </time>
            </div>
            <EntityTypeBadge type={entity.type} className="max-w-[45%]" />
          </li>
        )}
      </CardList>
    </Card>
  );
}
