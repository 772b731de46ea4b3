import type { DuplicateEntity, Entity } from '@engram/shared';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { formatCount, formatDate, pluralize } from '@/lib/format';
import { entityPath, metadataPairs, OBSERVATIONS_SHOWN } from '../display';

/** What the card read of one entity in full (GET /api/entities/{id}). */
export interface SideDetails {
  entity: Entity | undefined;
  pending: boolean;
  /** The entity is gone (404): the pair is out of date. */
  gone: boolean;
  failed: boolean;
}

/**
 * One entity of a pair, as a person weighs it before merging: its name (a
 * link to its page), type, aliases, how much it holds, its first
 * observations and metadata.
 */
export function EntitySide({
  entity,
  details,
  headingId,
}: {
  /** The pair's view of the entity: its counts are what a merge moves. */
  entity: DuplicateEntity;
  details: SideDetails;
  headingId: string;
}) {
  const full = details.entity;
  return (
    <section aria-labelledby={headingId} className="grid min-w-0 content-start gap-2.5 p-4">
      <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1.5">
        <h3 id={headingId} className="min-w-0 text-sm leading-5 font-semibold wrap-anywhere">
          <Link
            to={entityPath(entity.id)}
            className="underline-offset-4 outline-none hover:text-primary hover:underline focus-visible:underline"
          >
            {entity.name}
          </Link>
        </h3>
        <EntityTypeBadge type={entity.type} className="max-w-[60%]" />
      </div>

      <p className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-muted-foreground">
        <span>{pluralize(entity.observationsCount, 'observation')}</span>
        <span>{pluralize(entity.relationsCount, 'relation')}</span>
        {full ? (
          <span>
            Created <time dateTime={full.createdAt}>{formatDate(full.createdAt)}</time>
          </span>
        ) : null}
      </p>

      {details.gone ? (
        <p className="text-xs text-destructive">This entity no longer exists.</p>
      ) : details.failed ? (
        <p className="text-xs text-muted-foreground">Its details could not be loaded.</p>
      ) : details.pending || !full ? (
        <SideSkeleton />
      ) : (
        <SideDetailsList entity={full} />
      )}
    </section>
  );
}

function SideDetailsList({ entity }: { entity: Entity }) {
  const observations = entity.observations.slice(0, OBSERVATIONS_SHOWN);
  const more = entity.observationsCount - observations.length;
  const pairs = metadataPairs(entity.metadata);
  const moreKeys = Object.keys(entity.metadata).length - pairs.length;
  return (
    <>
      {entity.aliases.length > 0 ? (
        <p className="text-xs wrap-anywhere">
          <span className="text-muted-foreground">Also known as </span>
          {entity.aliases.join(', ')}
        </p>
      ) : null}

      {observations.length > 0 ? (
        <div className="grid gap-1">
          <ul className="grid gap-1.5" aria-label={`Observations of ${entity.name}`}>
            {observations.map((observation) => (
              <li
                key={observation.id}
                className="line-clamp-2 border-l-2 border-border pl-2 text-sm leading-5 wrap-anywhere"
                title={observation.content}
              >
                {observation.content}
              </li>
            ))}
          </ul>
          {more > 0 ? (
            <p className="pl-2.5 text-xs text-muted-foreground">+ {formatCount(more)} more</p>
          ) : null}
        </div>
      ) : (
        <p className="text-xs text-muted-foreground">No observations</p>
      )}

      {pairs.length > 0 ? (
        <div className="grid gap-0.5 border-t border-border pt-2 text-xs">
          <dl className="grid gap-0.5" aria-label={`Metadata of ${entity.name}`}>
            {pairs.map(({ key, value }) => (
              <div key={key} className="flex min-w-0 gap-1.5">
                <dt className="shrink-0 text-muted-foreground">{key}:</dt>
                <dd className="min-w-0 truncate" title={value}>
                  {value}
                </dd>
              </div>
            ))}
          </dl>
          {moreKeys > 0 ? (
            <p className="text-muted-foreground">+ {pluralize(moreKeys, 'more key')}</p>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

function SideSkeleton() {
  return (
    <div aria-hidden className="grid animate-pulse gap-2 py-0.5">
      <div className="h-3.5 w-11/12 rounded bg-muted" />
      <div className="h-3.5 w-3/4 rounded bg-muted" />
      <div className="h-3.5 w-1/2 rounded bg-muted" />
    </div>
  );
}
