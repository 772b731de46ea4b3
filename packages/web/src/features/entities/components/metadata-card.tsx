import { Panel } from '@/components/graph-canvas';
import { metadataPreview } from '../display';

/**
 * The entity's metadata on its page (issue 58): every key with its value, in
 * the order the keys were stored; strings as they are, anything else as
 * compact JSON.
 */
export function MetadataCard({
  metadata,
  className,
}: {
  metadata: Record<string, unknown>;
  className?: string;
}) {
  const pairs = metadataPreview(metadata, Infinity);
  return (
    <Panel title="Metadata" className={className}>
      {pairs.length === 0 ? (
        <p className="text-sm text-muted-foreground">No metadata</p>
      ) : (
        <dl className="grid gap-2 text-sm" aria-label="Metadata">
          {pairs.map(({ key, value }) => (
            <div key={key} className="grid gap-0.5">
              <dt className="text-xs text-muted-foreground wrap-anywhere">{key}</dt>
              <dd className="font-mono text-xs wrap-anywhere">{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </Panel>
  );
}
