import { formatDateTime } from '@/lib/format';
import { useEntityAuthors } from '../api/entity-authors';
import { authorLines, timeAgo } from '../history-model';

/**
 * Who created the entity and who last changed it, and when (docs/history.md):
 * quiet text under the entity's title. Nothing while it loads, when it fails,
 * or when history no longer says.
 */
export function EntityAuthorsNote({ entityId }: { entityId: string }) {
  const authors = useEntityAuthors(entityId);
  const lines = authors.data ? authorLines(authors.data) : [];
  if (lines.length === 0) return null;
  return (
    <p
      className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs text-muted-foreground"
      data-testid="entity-authors"
    >
      {lines.map((line) => (
        <span key={line.kind} className="wrap-anywhere">
          {line.text}
          <span aria-hidden> · </span>
          <time dateTime={line.at} title={formatDateTime(line.at)}>
            {timeAgo(line.at)}
          </time>
        </span>
      ))}
    </p>
  );
}
