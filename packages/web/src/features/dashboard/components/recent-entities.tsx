import type { AnalyticsSummary } from '@engram/shared';
import { RECENT_ENTITIES_MAX } from '@engram/shared';
import { Boxes } from 'lucide-react';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Card, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatDate } from '../usage-rules';

/** Up to 5, each with name, type and creation date; 'No entities yet'. */
export function RecentEntities({ entities }: { entities: AnalyticsSummary['recentEntities'] }) {
  const shown = entities.slice(0, RECENT_ENTITIES_MAX);
  return (
    <Card className="flex flex-col">
      <CardHeader className="pb-3">
        <CardTitle>Recent Entities</CardTitle>
        <CardDescription>The latest additions to your graph</CardDescription>
      </CardHeader>
      <div className="flex-1 px-6 pb-5">
        {shown.length === 0 ? (
          <div className="flex h-full min-h-32 flex-col items-center justify-center gap-2 text-center">
            <span className="flex size-9 items-center justify-center rounded-full bg-muted text-muted-foreground">
              <Boxes className="size-4" aria-hidden />
            </span>
            <p className="text-sm text-muted-foreground">No entities yet</p>
          </div>
        ) : (
          <ul className="grid grid-cols-1 gap-1" aria-label="Recent entities">
            {shown.map((entity) => (
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
            ))}
          </ul>
        )}
      </div>
    </Card>
  );
}
