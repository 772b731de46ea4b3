import { ArrowLeft, Check, type LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';

export interface PlannedScreenProps {
  title: string;
  description: string;
  icon: LucideIcon;
  /** What the finished screen will hold, one line each. */
  contents: string[];
  /** Where the Back button goes, for screens below another one. */
  backTo?: string;
  children?: ReactNode;
}

/**
 * A signed-in screen whose feature has not shipped yet: it names itself and
 * lists what it will hold, so the route reads as deliberate, not broken.
 */
export function PlannedScreen({
  title,
  description,
  icon: Icon,
  contents,
  backTo,
  children,
}: PlannedScreenProps) {
  return (
    <div className="grid gap-6">
      <title>{`${title} · Engram`}</title>
      {backTo ? (
        <div>
          <Button asChild variant="ghost" size="sm" className="-ml-3">
            <Link to={backTo}>
              <ArrowLeft aria-hidden />
              Back
            </Link>
          </Button>
        </div>
      ) : null}
      <PageHeader title={title} description={description} />
      {children}
      <Card className="overflow-hidden">
        <div className="flex flex-col gap-6 p-6 sm:flex-row sm:items-start">
          <div className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-primary-soft text-primary-soft-foreground">
            <Icon className="size-5" aria-hidden />
          </div>
          <div className="min-w-0 flex-1">
            <div className="flex flex-wrap items-center gap-2">
              <h2 className="text-sm font-semibold">What this screen will hold</h2>
              <Badge variant="accent">In development</Badge>
            </div>
            <ul className="mt-4 grid gap-2.5 sm:grid-cols-2">
              {contents.map((line) => (
                <li key={line} className="flex gap-2 text-sm text-muted-foreground">
                  <Check className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
                  <span>{line}</span>
                </li>
              ))}
            </ul>
          </div>
        </div>
      </Card>
    </div>
  );
}
