import { Building2, Mail } from 'lucide-react';
import { Button } from '@/components/ui/button';

const SALES_EMAIL = 'sales@engram.dev';

export function EnterpriseCard() {
  return (
    <article
      aria-labelledby="plan-enterprise-title"
      className="flex flex-col gap-6 rounded-lg border border-border bg-card p-6 shadow-xs md:flex-row md:items-center"
    >
      <div className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-muted">
        <Building2 className="size-5 text-muted-foreground" aria-hidden />
      </div>
      <div className="min-w-0 flex-1">
        <h2 id="plan-enterprise-title" className="text-base font-semibold">
          Enterprise
        </h2>
        <p className="mt-1 text-sm text-muted-foreground">
          Custom limits, volume pricing and dedicated support for organisations running agents at
          scale. Priced to fit, by talking to us.
        </p>
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <Button asChild>
          <a href={`mailto:${SALES_EMAIL}?subject=${encodeURIComponent('Engram Enterprise')}`}>
            <Mail aria-hidden />
            Contact Sales
          </a>
        </Button>
        {/* The demo button exists but has no action yet (decision 007). */}
        <Button variant="outline">Schedule Demo</Button>
      </div>
    </article>
  );
}
