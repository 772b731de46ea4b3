/**
 * The one plan catalog (docs/product.md, Plans), used by the server to enforce
 * limits and by the web app's pricing page. Limits are the public pricing
 * page's (docs/product.md, Numbers); -1 means unlimited.
 */
export interface PlanFeatures {
  maxEntities: number;
  /** Observations one entity may hold. */
  maxObservationsPerEntity: number;
  /** Bytes of memory (names, types, metadata, observation text, plus a per-row overhead) per account. */
  maxStorageBytes: number;
  /** Operations per month. */
  maxQueries: number;
  maxApiKeys: number;
  maxWebhooks: number;
  /** Memory spaces (separate graphs) per account, the default one included. */
  maxSpaces: number;
  /** People in the account (members and pending invitations together). */
  maxMembers: number;
  /**
   * Days the change log keeps an account's events (what a realtime client can
   * resume from); older ones are compacted. The operator's
   * CHANGE_LOG_RETENTION_DAYS replaces it for every plan.
   */
  changeLogRetentionDays: number;
  features: string[];
}

export interface Plan {
  id: string;
  name: string;
  /** Cents per interval. */
  price: number;
  interval: 'month' | 'year' | null;
  /** Checkout price identifier; null for the free plan. */
  priceId: string | null;
  popular: boolean;
  features: PlanFeatures;
}

export const UNLIMITED = -1;
export const FREE_PLAN_ID = 'free';

interface Tier {
  id: string;
  name: string;
  monthlyCents: number;
  annualCents: number;
  popular: boolean;
  features: PlanFeatures;
}

const TIERS: Tier[] = [
  {
    id: 'free',
    name: 'Free',
    monthlyCents: 0,
    annualCents: 0,
    popular: false,
    features: {
      maxEntities: 1_000,
      maxObservationsPerEntity: 1_000,
      maxStorageBytes: 104_857_600,
      maxQueries: 15_000,
      maxApiKeys: 1,
      maxWebhooks: 0,
      maxSpaces: 3,
      maxMembers: 1,
      changeLogRetentionDays: 7,
      features: [
        '1,000 entities',
        '100 MB of memory',
        '1,000 observations per entity',
        '15K operations per month',
        '1 API key',
        '3 memory spaces',
        'Single user',
        'Basic WebSocket',
        'Community support',
      ],
    },
  },
  {
    id: 'starter',
    name: 'Starter',
    monthlyCents: 1_000,
    annualCents: 10_000,
    popular: true,
    features: {
      maxEntities: 10_000,
      maxObservationsPerEntity: 5_000,
      maxStorageBytes: 1_073_741_824,
      maxQueries: 100_000,
      maxApiKeys: 3,
      maxWebhooks: 5,
      maxSpaces: 20,
      maxMembers: 1,
      changeLogRetentionDays: 30,
      features: [
        '10,000 entities',
        '1 GB of memory',
        '5,000 observations per entity',
        '100K operations per month',
        '3 API keys',
        '20 memory spaces',
        '5 webhook endpoints',
        'Real-time sync',
        'Email support',
        'Single user',
      ],
    },
  },
  {
    id: 'pro',
    name: 'Pro',
    monthlyCents: 2_000,
    annualCents: 20_000,
    popular: false,
    features: {
      maxEntities: 100_000,
      maxObservationsPerEntity: 10_000,
      maxStorageBytes: 10_737_418_240,
      maxQueries: 1_000_000,
      maxApiKeys: 10,
      maxWebhooks: 20,
      maxSpaces: 10_000,
      maxMembers: 5,
      changeLogRetentionDays: 90,
      features: [
        '100,000 entities',
        '10 GB of memory',
        '10,000 observations per entity',
        '1M operations per month',
        '10 API keys',
        '10,000 memory spaces',
        'Up to 5 team members',
        '20 webhook endpoints',
        'Advanced sync',
        'Priority support',
        'Custom integrations',
        'SLA',
      ],
    },
  },
  {
    id: 'team',
    name: 'Power User',
    monthlyCents: 6_000,
    annualCents: 60_000,
    popular: false,
    features: {
      maxEntities: 1_000_000,
      maxObservationsPerEntity: 50_000,
      maxStorageBytes: 107_374_182_400,
      maxQueries: 10_000_000,
      maxApiKeys: 50,
      maxWebhooks: UNLIMITED,
      maxSpaces: UNLIMITED,
      maxMembers: 25,
      changeLogRetentionDays: 365,
      features: [
        '1M entities',
        '100 GB of memory',
        '50,000 observations per entity',
        '10M operations per month',
        '50 API keys',
        'Unlimited memory spaces',
        'Up to 25 team members',
        'Unlimited webhooks',
        'Advanced sync',
        'Priority support',
        'Custom integrations',
        'SLA',
      ],
    },
  },
];

function monthlyPlan(tier: Tier): Plan {
  const free = tier.monthlyCents === 0;
  return {
    id: tier.id,
    name: tier.name,
    price: tier.monthlyCents,
    interval: free ? null : 'month',
    priceId: free ? null : `price_${tier.id}_monthly`,
    popular: tier.popular,
    features: tier.features,
  };
}

function annualPlan(tier: Tier): Plan {
  return {
    id: `${tier.id}-annual`,
    name: tier.name,
    price: tier.annualCents,
    interval: 'year',
    priceId: `price_${tier.id}_annual`,
    popular: tier.popular,
    features: tier.features,
  };
}

export const PLANS: Plan[] = [
  ...TIERS.map(monthlyPlan),
  ...TIERS.filter((tier) => tier.monthlyCents > 0).map(annualPlan),
];

/** 104857600 → '100 MB', 1073741824 → '1 GB': storage limits as people read them. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/** The plan with this id; unknown ids get the free plan (docs/product.md, Numbers). */
export function planById(id: string | null | undefined): Plan {
  return PLANS.find((plan) => plan.id === id) ?? PLANS[0]!;
}

/** 'pro-annual' → 'pro': the tier whose limits apply. */
export function tierOf(planId: string): string {
  return planId.replace(/-annual$/, '');
}

/** A plan's place from free (0) up; unknown plans rank as free. Upgrades go up, downgrades down. */
export function tierRank(planId: string): number {
  return Math.max(
    0,
    TIERS.findIndex((tier) => tier.id === tierOf(planById(planId).id)),
  );
}
