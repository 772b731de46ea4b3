import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { SegmentedControl } from '@/components/ui/segmented-control';
import type { BillingCycle } from '@/lib/plans';
import { pricingTiers } from '../pricing-tiers';
import { EnterpriseCard } from './enterprise-card';
import { PlanCard } from './plan-card';
import { PricingFaq } from './pricing-faq';

export function PricingPage() {
  const [cycle, setCycle] = useState<BillingCycle>('monthly');
  return (
    <div className="mx-auto grid max-w-6xl gap-16 px-4 py-16 sm:px-6 md:py-20">
      <title>Pricing · Engram</title>
      <div className="grid gap-10">
        <div className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold text-primary">Pricing</p>
          <h1 className="mt-2 text-4xl font-semibold tracking-tight text-balance">
            Simple pricing that grows with your agents
          </h1>
          <p className="mt-4 text-muted-foreground">
            Start free. Every paid plan includes a 14-day trial, no credit card required.
          </p>
          <SegmentedControl
            aria-label="Billing period"
            className="mt-8"
            value={cycle}
            onValueChange={setCycle}
            options={[
              { value: 'monthly', label: 'Monthly' },
              {
                value: 'annual',
                label: (
                  <>
                    Annual
                    <Badge variant="success">Save 17%</Badge>
                  </>
                ),
              },
            ]}
          />
        </div>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {pricingTiers(cycle).map((tier) => (
            <PlanCard key={tier.tierId} tier={tier} cycle={cycle} />
          ))}
        </div>
        <EnterpriseCard />
      </div>
      <PricingFaq />
    </div>
  );
}
