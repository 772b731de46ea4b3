import type { EmbeddingStatus } from '@engram/shared';
import { Sparkles } from 'lucide-react';
import { formatCount } from '../usage-rules';

/**
 * One quiet line under the totals, only on a server with an embeddings
 * endpoint: how much of the account's memory the semantic index covers, and
 * why it stopped when it did (the endpoint failing, storage full).
 */
export function SemanticIndex({ status }: { status: EmbeddingStatus | null | undefined }) {
  if (!status) return null;
  const total = status.embedded + status.pending;
  return (
    <div
      className="-mt-3 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground"
      data-testid="semantic-index"
    >
      <Sparkles className="size-3.5 shrink-0" aria-hidden />
      <span>
        Semantic index: {formatCount(status.embedded)} of {formatCount(total)} observations embedded
        ({status.model})
      </span>
      {status.lastError ? (
        <span className="text-warning-soft-foreground">· Paused: {status.lastError}</span>
      ) : null}
    </div>
  );
}
