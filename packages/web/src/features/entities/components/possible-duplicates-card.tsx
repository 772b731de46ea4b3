import { Link } from 'react-router';
import { Panel } from '@/components/graph-canvas';
import { duplicateScoreLabel, useEntityDuplicates } from '@/lib/api/duplicates';
import { entityPath } from '../display';

/** The Duplicates screen with this entity's pairs only. */
const reviewPath = (entityId: string) => `/duplicates?entity=${encodeURIComponent(entityId)}`;

/**
 * "Possible duplicates" on the entity page (issue 59): the entities most
 * likely to be this one, each with the score and the reasons, and Review,
 * which opens the Duplicates screen on this entity's pairs (to merge them or
 * mark them as not the same). Nothing at all while there are none, or the
 * read has not answered.
 */
export function PossibleDuplicatesCard({
  entityId,
  className,
}: {
  entityId: string;
  className?: string;
}) {
  const duplicates = useEntityDuplicates(entityId);
  const pairs = duplicates.data?.candidates ?? [];
  if (pairs.length === 0) return null;
  return (
    <Panel title="Possible duplicates" className={className}>
      <ul className="-my-2 divide-y divide-border" aria-label="Possible duplicates">
        {pairs.map((pair) => {
          const other = pair.entities.find((entity) => entity.id !== entityId) ?? pair.entities[0];
          if (!other) return null;
          return (
            <li key={pair.id} className="grid gap-1 py-2">
              <div className="flex min-w-0 items-baseline justify-between gap-2">
                <Link
                  to={entityPath(other.id)}
                  className="min-w-0 text-sm font-medium wrap-anywhere underline-offset-4 hover:text-primary hover:underline"
                >
                  {other.name}
                </Link>
                <span
                  className="shrink-0 text-xs text-muted-foreground tabular-nums"
                  title="How likely the two are one thing"
                >
                  {duplicateScoreLabel(pair.score)}
                </span>
              </div>
              {pair.reasons.length > 0 ? (
                <p className="text-xs text-muted-foreground wrap-anywhere">
                  {pair.reasons.join(' · ')}
                </p>
              ) : null}
              <Link
                to={reviewPath(entityId)}
                aria-label={`Review ${other.name}`}
                className="w-fit text-xs font-medium text-primary underline-offset-4 hover:underline"
              >
                Review
              </Link>
            </li>
          );
        })}
      </ul>
    </Panel>
  );
}
