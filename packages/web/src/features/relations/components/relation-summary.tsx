import { typeLabel, type Relation } from '@engram/shared';
import { ArrowRight } from 'lucide-react';
import { Badge } from '@/components/ui/badge';

/** 'Ada → Uses → Engram' in one line that wraps on narrow screens. */
export function RelationSummary({ relation }: { relation: Relation }) {
  return (
    <p className="flex flex-wrap items-center gap-2 rounded-lg border border-border bg-muted px-3 py-2 text-sm">
      <span className="font-medium break-all">{relation.fromEntity.name}</span>
      <ArrowRight className="size-4 shrink-0 text-muted-foreground" aria-hidden />
      <Badge variant="accent">{typeLabel(relation.type)}</Badge>
      <ArrowRight className="size-4 shrink-0 text-muted-foreground" aria-hidden />
      <span className="font-medium break-all">{relation.toEntity.name}</span>
    </p>
  );
}
