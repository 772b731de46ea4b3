import { Lock } from 'lucide-react';
import type { ReactNode } from 'react';

/**
 * Why a screen offers nothing to change: the person's role in the account
 * does not allow it. One look wherever a role stops someone.
 */
export function RoleNote({ testId, children }: { testId: string; children: ReactNode }) {
  return (
    <div
      role="note"
      data-testid={testId}
      className="flex items-start gap-2 rounded-lg border border-border bg-card px-3 py-2.5 text-sm text-muted-foreground shadow-xs"
    >
      <Lock className="mt-0.5 size-4 shrink-0" aria-hidden />
      <p className="min-w-0">{children}</p>
    </div>
  );
}
