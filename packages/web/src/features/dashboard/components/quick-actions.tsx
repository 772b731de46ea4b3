import { Download, Network, Plus, Search } from 'lucide-react';
import type { ComponentType, ReactNode } from 'react';
import { Link } from 'react-router';
import { Card, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { useCan } from '@/lib/account';

const ACTION =
  'flex w-full cursor-pointer items-center gap-3 rounded-lg border border-border bg-card px-3 py-2.5 text-left text-sm font-medium shadow-xs transition-colors hover:bg-muted focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none disabled:cursor-wait disabled:opacity-70';

function ActionContent({
  icon: Icon,
  label,
  hint,
}: {
  icon: ComponentType<{ className?: string }>;
  label: string;
  hint: string;
}) {
  return (
    <>
      <span className="flex size-8 shrink-0 items-center justify-center rounded-md bg-primary-soft text-primary-soft-foreground">
        <Icon className="size-4" aria-hidden />
      </span>
      <span className="min-w-0">
        <span className="block">{label}</span>
        <span className="block truncate text-xs font-normal text-muted-foreground">{hint}</span>
      </span>
    </>
  );
}

function ActionLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} className={ACTION}>
      {children}
    </Link>
  );
}

/** The spec's words for Export Data: exports live in Settings → Import/Export. */
export const EXPORT_DATA_ALERT = 'Export functionality will be implemented soon';

/**
 * The dashboard's Quick Actions. Export Data only shows the product
 * contract's alert (exports are in Settings → Import/Export). A viewer, who
 * reads only, is not offered Create Entity (lib/account/role-rules.ts).
 */
export function QuickActions() {
  const canEdit = useCan('editGraph');
  return (
    <Card className="flex flex-col">
      <CardHeader className="pb-3">
        <CardTitle>Quick Actions</CardTitle>
        <CardDescription>Jump to common tasks</CardDescription>
      </CardHeader>
      <div className="grid gap-2 px-6 pb-5">
        {canEdit ? (
          <ActionLink to="/entities?create=1">
            <ActionContent
              icon={Plus}
              label="Create Entity"
              hint="Add a person, concept or thing"
            />
          </ActionLink>
        ) : null}
        <ActionLink to="/graph">
          <ActionContent icon={Network} label="View Graph" hint="See how everything connects" />
        </ActionLink>
        <ActionLink to="/search">
          <ActionContent icon={Search} label="Search Knowledge" hint="Find entities and facts" />
        </ActionLink>
        <button type="button" className={ACTION} onClick={() => window.alert(EXPORT_DATA_ALERT)}>
          <ActionContent icon={Download} label="Export Data" hint="Export your graph" />
        </button>
      </div>
    </Card>
  );
}
