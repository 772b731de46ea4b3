import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

export interface Consequence {
  icon: LucideIcon;
  text: ReactNode;
}

/** What a confirmation will do, one line each, so nobody confirms blind. */
export function ConsequenceList({ items, label }: { items: Consequence[]; label: string }) {
  return (
    <ul aria-label={label} className="grid gap-2.5 rounded-lg border border-border bg-muted/50 p-3">
      {items.map(({ icon: Icon, text }, index) => (
        <li key={index} className="flex gap-2.5 text-sm">
          <Icon className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
          <span>{text}</span>
        </li>
      ))}
    </ul>
  );
}
