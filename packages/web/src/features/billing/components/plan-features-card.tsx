import type { Subscription } from '@engram/shared';
import { Check } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatLimit } from '../billing-rules';

/** The limits in force (-1 is Unlimited) and the plan's included features. */
export function PlanFeaturesCard({ subscription }: { subscription: Subscription }) {
  const { features, limitsPlan } = subscription;
  const limits = [
    { label: 'Max Entities', value: features.maxEntities },
    { label: 'Operations/Month', value: features.maxQueries },
    { label: 'API Keys', value: features.maxApiKeys },
    { label: 'Webhook Endpoints', value: features.maxWebhooks },
  ];
  return (
    <Card role="region" aria-label="Plan features">
      <CardHeader>
        <CardTitle>Plan Features</CardTitle>
        <CardDescription>The limits of the {limitsPlan.name} plan apply now</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5">
        <dl className="grid grid-cols-2 gap-3">
          {limits.map((limit) => (
            <div
              key={limit.label}
              className="rounded-lg border border-border bg-surface px-3 py-2.5"
              data-testid="plan-limit"
            >
              <dt className="text-xs text-muted-foreground">{limit.label}</dt>
              <dd className="mt-0.5 text-base font-semibold tabular-nums">
                {formatLimit(limit.value)}
              </dd>
            </div>
          ))}
        </dl>
        <ul className="grid gap-1.5 text-sm" aria-label="Included features">
          {features.features.map((feature) => (
            <li key={feature} className="flex items-start gap-2">
              <Check className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
              <span>{feature}</span>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
