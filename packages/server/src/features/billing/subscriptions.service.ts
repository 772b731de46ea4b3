import {
  BILLING_NOT_FOUND,
  BILLING_OWNER_ONLY,
  FREE_PLAN_ID,
  PLAN_CHANGES_BY_OPERATOR,
  PLANS,
  planById,
  type BillingPlan,
  type ChangePlanInput,
  type CheckoutInput,
  type Invoice,
  type Plan,
  type PlanChanges,
  type PlanFeaturesView,
  type Subscription,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import {
  badRequest,
  conflict,
  forbidden,
  notFoundBecause,
  serviceUnavailable,
} from '../../lib/errors.js';
import { effectivePlan, isUpgrade, LIVE, pendingDowngrade } from '../entitlements/index.js';
import * as repo from './billing.repository.js';
import type { BillingProvider, ProviderSubscription } from './billing-provider.js';

/**
 * Subscriptions: how one reads, and every change to it (checkout, plan
 * changes, cancelling, the operator's). Cards are payment-methods.service.ts,
 * the provider's events stripe-events.service.ts; the plan whose limits apply is
 * entitlements', which billing tells of every change (`planChanged`).
 */
export interface BillingDeps {
  db: Db;
  now: () => Date;
  provider: BillingProvider;
  /**
   * Without a provider: whether owners pick any plan themselves
   * (PLAN_SELF_SERVICE); false leaves plans to the operator (`engram plan set`).
   */
  planSelfService: boolean;
  /** Origin of PUBLIC_URL: checkout's return addresses must be on it when set. */
  publicOrigin?: string | undefined;
  onError?: ((error: unknown, message: string) => void) | undefined;
  /** Called once an account's subscription changed: entitlements read its plan again (`Entitlements.forget`). */
  planChanged?: ((accountId: string) => void) | undefined;
}

/** Provider states after which a subscription never comes back. */
export const ENDED = new Set(['canceled', 'incomplete_expired']);
const INVOICES_MAX = 100;

const FREE = planById(FREE_PLAN_ID);
const billingNotFound = () => notFoundBecause(BILLING_NOT_FOUND);

// ── how a subscription reads ────────────────────────────────────────────────

interface Standing {
  /** The plan the account is on now (free once a paid plan ran out; before a downgrade is due, the plan it leaves). */
  plan: Plan;
  status: string;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
  /** The plan whose limits apply. */
  limits: Plan;
  /** What happens at the period end: a downgrade, or Free when set to cancel. */
  scheduled: { plan: Plan; at: Date } | null;
}

function addInterval(from: Date, interval: 'month' | 'year'): Date {
  const next = new Date(from);
  if (interval === 'year') next.setUTCFullYear(next.getUTCFullYear() + 1);
  else next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

function standingOf(row: repo.SubscriptionRow, now: Date, provider: BillingProvider): Standing {
  const limits = effectivePlan(row, now);
  const plan = planById(row.plan_id);
  const ranOut =
    row.cancel_at_period_end && row.current_period_end !== null && row.current_period_end <= now;
  if (plan.id === FREE_PLAN_ID || ranOut) {
    return {
      plan: FREE,
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      limits,
      scheduled: null,
    };
  }
  let periodEnd = row.current_period_end;
  // Without a provider nothing renews a period: the next one simply starts.
  if (!provider.renewsPeriods && periodEnd && plan.interval) {
    while (periodEnd <= now) periodEnd = addInterval(periodEnd, plan.interval);
  }
  const downgrade = LIVE.has(row.status) ? pendingDowngrade(row, now) : null;
  let scheduled: Standing['scheduled'] = null;
  if (row.cancel_at_period_end) scheduled = periodEnd ? { plan: FREE, at: periodEnd } : null;
  else if (downgrade) scheduled = { plan: downgrade.to, at: downgrade.at };
  return {
    plan: downgrade?.from ?? plan,
    status: row.status,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    currentPeriodEnd: periodEnd,
    limits,
    scheduled,
  };
}

function featuresOf(plan: Plan): PlanFeaturesView {
  const { maxEntities, maxQueries, maxApiKeys, maxWebhooks, features } = plan.features;
  return { maxEntities, maxQueries, maxApiKeys, maxWebhooks, features };
}

function present(row: repo.SubscriptionRow, deps: BillingDeps): Subscription {
  const standing = standingOf(row, deps.now(), deps.provider);
  return {
    plan: standing.plan.id,
    name: standing.plan.name,
    status: standing.status,
    cancelAtPeriodEnd: standing.cancelAtPeriodEnd,
    currentPeriodEnd: standing.currentPeriodEnd
      ? Math.floor(standing.currentPeriodEnd.getTime() / 1000)
      : null,
    features: featuresOf(standing.limits),
    limitsPlan: { id: standing.limits.id, name: standing.limits.name },
    scheduledChange: standing.scheduled
      ? {
          plan: standing.scheduled.plan.id,
          name: standing.scheduled.plan.name,
          at: Math.floor(standing.scheduled.at.getTime() / 1000),
        }
      : null,
    provider: deps.provider.kind,
    planChanges: planChangesOf(deps),
  };
}

/** Who changes plans on this server: payments, each owner, or the operator alone. */
export function planChangesOf(deps: BillingDeps): PlanChanges {
  if (deps.provider.kind !== 'none') return 'provider';
  return deps.planSelfService ? 'self' : 'operator';
}

/**
 * Without payments, taking a plan is free: on a server others share, any
 * owner could give themselves the top plan's limits, which are what keeps
 * one tenant from crowding out the rest. So there a paid plan is only
 * taken through the operator (403); giving a plan up — moving to Free,
 * cancelling, or undoing one's own cancellation before it takes effect —
 * never raises the limits above what the operator granted, and stays open.
 */
function requireSelfService(deps: BillingDeps): void {
  if (planChangesOf(deps) === 'operator') throw forbidden(PLAN_CHANGES_BY_OPERATOR);
}

export async function subscriptionRow(deps: BillingDeps, accountId: string) {
  const row = await repo.findSubscription(deps.db, accountId);
  if (!row) throw billingNotFound();
  return row;
}

/** Billing changes are the owner's: the role the request carries (members' `actIn`). */
export function requireOwner(auth: AuthContext): void {
  if (auth.role !== 'owner') throw forbidden(BILLING_OWNER_ONLY);
}

// ── reads ───────────────────────────────────────────────────────────────────

export async function getSubscription(deps: BillingDeps, auth: AuthContext): Promise<Subscription> {
  return present(await subscriptionRow(deps, auth.accountId), deps);
}

/** Every plan of the catalog with the price id this server's provider takes for it. */
export function listPlans(deps: BillingDeps): BillingPlan[] {
  return PLANS.map((plan) => ({
    id: plan.id,
    name: plan.name,
    price: plan.price,
    interval: plan.interval,
    priceId: deps.provider.priceIdOf(plan.id),
    popular: plan.popular,
    features: featuresOf(plan),
  }));
}

export async function listInvoices(deps: BillingDeps, auth: AuthContext): Promise<Invoice[]> {
  const rows = await repo.listInvoices(deps.db, auth.accountId, INVOICES_MAX);
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    created: Math.floor(row.created.getTime() / 1000),
    amount: row.amount,
    status: row.status,
    hostedInvoiceUrl: row.hosted_invoice_url,
    invoicePdf: row.invoice_pdf,
  }));
}

// ── changes ─────────────────────────────────────────────────────────────────

export async function ensureCustomer(
  deps: BillingDeps,
  auth: AuthContext,
  row: repo.SubscriptionRow,
): Promise<string> {
  if (row.provider_customer_id) return row.provider_customer_id;
  const contact = await repo.contactOf(deps.db, auth.userId);
  const created = await deps.provider.createCustomer({
    accountId: auth.accountId,
    email: contact?.email ?? '',
    name: contact?.name ?? '',
  });
  return (await repo.claimCustomerId(deps.db, auth.accountId, created)) ?? created;
}

/** The catalog plan a price id names: the provider's id, or the catalog's own (the pricing page's). */
function planOfPrice(deps: BillingDeps, priceId: string): Plan | undefined {
  return PLANS.find(
    (plan) =>
      plan.priceId !== null &&
      (deps.provider.priceIdOf(plan.id) === priceId || plan.priceId === priceId),
  );
}

/** A plan given at once, a new period starting now (an upgrade without a provider, or the operator's). */
function directChange(plan: Plan, now: Date): repo.SubscriptionChange {
  return {
    plan_id: plan.id,
    status: 'active',
    cancel_at_period_end: false,
    current_period_end: plan.interval ? addInterval(now, plan.interval) : null,
    grace_plan_id: null,
    grace_until: null,
  };
}

/**
 * The `none` provider's plan change, timed as with a provider (pricing FAQ):
 * an upgrade applies at once with a new period; a downgrade keeps the plan
 * in force until the period ends (`grace_*`), Free by cancelling at the
 * period end; choosing the plan in force again calls a scheduled change off.
 */
function directMove(standing: Standing, plan: Plan, now: Date): repo.SubscriptionChange {
  const from = standing.plan;
  const periodEnd = standing.currentPeriodEnd;
  if (from.id === FREE_PLAN_ID || isUpgrade(from, plan) || !periodEnd) {
    return directChange(plan, now);
  }
  if (plan.id === from.id) {
    return {
      plan_id: plan.id,
      cancel_at_period_end: false,
      current_period_end: periodEnd,
      grace_plan_id: null,
      grace_until: null,
    };
  }
  if (plan.id === FREE_PLAN_ID) {
    return { cancel_at_period_end: true, current_period_end: periodEnd };
  }
  return {
    plan_id: plan.id,
    cancel_at_period_end: false,
    current_period_end: periodEnd,
    grace_plan_id: from.id,
    grace_until: periodEnd,
  };
}

/**
 * What a provider's report of a subscription changes in the row, or null
 * when it must change nothing: a report about a subscription that already
 * ended (it never comes back), the end of an older subscription while
 * another is live, or a price this server does not sell.
 */
export function changeFrom(
  row: repo.SubscriptionRow,
  reported: ProviderSubscription,
  deps: BillingDeps,
): repo.SubscriptionChange | null {
  const now = deps.now();
  const currentPlan = planById(row.plan_id);
  const sameSubscription = row.provider_subscription_id === reported.id;
  const ids = {
    provider: deps.provider.kind,
    provider_subscription_id: reported.id,
    provider_customer_id: reported.customerId || row.provider_customer_id,
  };
  if (ENDED.has(reported.status)) {
    if (!sameSubscription && row.provider_subscription_id && currentPlan.id !== FREE_PLAN_ID) {
      return null;
    }
    return {
      ...ids,
      plan_id: FREE_PLAN_ID,
      status: 'active',
      cancel_at_period_end: false,
      current_period_end: null,
      grace_plan_id: null,
      grace_until: null,
    };
  }
  if (sameSubscription && currentPlan.id === FREE_PLAN_ID) return null;
  if (!reported.planId) return null;
  const next = planById(reported.planId);
  const change: repo.SubscriptionChange = {
    ...ids,
    plan_id: next.id,
    status: reported.status,
    cancel_at_period_end: reported.cancelAtPeriodEnd,
    current_period_end: reported.currentPeriodEnd
      ? new Date(reported.currentPeriodEnd * 1000)
      : null,
  };
  if (next.id === currentPlan.id) return change;
  // The plan moved: judged against the plan in force (a downgrade not yet due keeps the one it left).
  const wasLivePaid = sameSubscription && currentPlan.id !== FREE_PLAN_ID && LIVE.has(row.status);
  const pending = pendingDowngrade(row, now);
  const inForce = pending?.from ?? currentPlan;
  if (
    wasLivePaid &&
    next.id !== inForce.id &&
    !isUpgrade(inForce, next) &&
    row.current_period_end &&
    row.current_period_end > now
  ) {
    // Downgrade: the plan in force was paid for until the period ends.
    change.grace_plan_id = inForce.id;
    change.grace_until = pending?.at ?? row.current_period_end;
  } else {
    change.grace_plan_id = null;
    change.grace_until = null;
  }
  return change;
}

/**
 * Applies what a plan-changing call to the provider answered. Its read
 * number is taken once the answer is in: a webhook's read begun earlier
 * changes nothing after it, and one begun later saw this state or newer.
 */
async function applyReported(
  deps: BillingDeps,
  accountId: string,
  reported: ProviderSubscription,
): Promise<repo.SubscriptionRow> {
  const read = await repo.takeReadNumber(deps.db);
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.lockSubscription(trx, accountId);
    if (!row) throw billingNotFound();
    if (read <= row.provider_read_seq) return;
    const change = changeFrom(row, reported, deps);
    await repo.updateSubscription(
      trx,
      accountId,
      { ...change, provider_read_seq: read },
      deps.now(),
    );
  });
  deps.planChanged?.(accountId);
  return subscriptionRow(deps, accountId);
}

async function applyDirect(
  deps: BillingDeps,
  accountId: string,
  change: repo.SubscriptionChange,
): Promise<repo.SubscriptionRow> {
  await repo.updateSubscription(deps.db, accountId, change, deps.now());
  deps.planChanged?.(accountId);
  return subscriptionRow(deps, accountId);
}

/**
 * POST /api/billing/change-plan (docs/product.md, States): a null price moves to free.
 * Upgrades apply now; downgrades at the period end, the plan in force
 * staying until then; Free cancels at the period end (pricing FAQ), with or
 * without a provider. Choosing the plan in force again calls a scheduled
 * change off. No provider: a paid plan is taken only where owners choose
 * their plan (`requireSelfService`). Stripe: paid to paid changes the
 * subscription's price (an upgrade is charged now; a downgrade is not
 * prorated); free to paid goes through checkout.
 */
export async function changePlan(
  deps: BillingDeps,
  auth: AuthContext,
  input: ChangePlanInput,
): Promise<Subscription> {
  requireOwner(auth);
  const plan = PLANS.find((candidate) => candidate.id === input.planId);
  if (!plan) throw billingNotFound();
  const priceId = deps.provider.priceIdOf(plan.id);
  const priceMatches =
    input.priceId === null
      ? priceId === null
      : input.priceId === priceId || input.priceId === plan.priceId;
  if (!priceMatches) {
    throw badRequest(
      'body.priceId',
      priceId === null
        ? 'The Free plan takes no price'
        : `That price is not the ${plan.name} plan's`,
    );
  }
  const row = await subscriptionRow(deps, auth.accountId);
  const standing = standingOf(row, deps.now(), deps.provider);
  const keeping = standing.plan.id === plan.id && LIVE.has(standing.status);
  if (keeping && !standing.scheduled) return present(row, deps);
  // Keeping the plan in force never raises the limits: open even where the operator sets plans.
  if (plan.id !== FREE_PLAN_ID && !keeping) requireSelfService(deps);

  if (deps.provider.kind === 'none') {
    const change = directMove(standing, plan, deps.now());
    return present(await applyDirect(deps, auth.accountId, change), deps);
  }

  const subscriptionId = row.provider_subscription_id;
  const hasPaidSubscription = standing.plan.id !== FREE_PLAN_ID && subscriptionId !== null;
  if (plan.id === FREE_PLAN_ID) {
    if (!hasPaidSubscription) return present(row, deps);
    const reported = await deps.provider.setCancelAtPeriodEnd(subscriptionId, true);
    return present(await applyReported(deps, auth.accountId, reported), deps);
  }
  if (!hasPaidSubscription) {
    throw conflict('Start a paid plan through checkout: this account has no paid subscription yet');
  }
  // Back to the plan in force is no upgrade: its period is paid for already.
  const reported = await deps.provider.changePrice(
    subscriptionId,
    priceId!,
    isUpgrade(standing.plan, plan),
  );
  return present(await applyReported(deps, auth.accountId, reported), deps);
}

function checkReturnUrl(deps: BillingDeps, field: string, url: string): void {
  if (deps.publicOrigin && new URL(url).origin !== deps.publicOrigin) {
    throw badRequest(`body.${field}`, `must be an address on ${deps.publicOrigin}`);
  }
}

/**
 * POST /api/billing/checkout: the hosted checkout page for a first paid
 * plan, returning to the caller's success or cancel address. Without a
 * provider there is nothing to pay: the plan applies at once and the
 * address returned is the success address itself (where owners choose
 * their plan: `requireSelfService`).
 */
export async function startCheckout(
  deps: BillingDeps,
  auth: AuthContext,
  input: CheckoutInput,
): Promise<{ url: string }> {
  requireOwner(auth);
  requireSelfService(deps);
  const plan = planOfPrice(deps, input.priceId);
  if (!plan) throw billingNotFound();
  checkReturnUrl(deps, 'successUrl', input.successUrl);
  checkReturnUrl(deps, 'cancelUrl', input.cancelUrl);
  const row = await subscriptionRow(deps, auth.accountId);

  if (deps.provider.kind === 'none') {
    const standing = standingOf(row, deps.now(), deps.provider);
    await applyDirect(deps, auth.accountId, directMove(standing, plan, deps.now()));
    return { url: input.successUrl };
  }

  const standing = standingOf(row, deps.now(), deps.provider);
  if (standing.plan.id !== FREE_PLAN_ID && row.provider_subscription_id) {
    throw conflict('This account already has a paid plan: use Change Plan to move to another');
  }
  const customerId = await ensureCustomer(deps, auth, row);
  const url = await deps.provider.createCheckout({
    accountId: auth.accountId,
    customerId,
    priceId: deps.provider.priceIdOf(plan.id)!,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
  });
  return { url };
}

/** POST /api/billing/cancel-subscription: at the period end (docs/product.md, States), or now with immediate. */
export async function cancelSubscription(
  deps: BillingDeps,
  auth: AuthContext,
  input: { immediate: boolean },
): Promise<Subscription> {
  requireOwner(auth);
  const row = await subscriptionRow(deps, auth.accountId);
  const standing = standingOf(row, deps.now(), deps.provider);
  if (standing.plan.id === FREE_PLAN_ID) {
    throw conflict('The Free plan has no subscription to cancel');
  }
  const subscriptionId = deps.provider.kind === 'none' ? null : row.provider_subscription_id;
  if (!subscriptionId) {
    const change: repo.SubscriptionChange = input.immediate
      ? directChange(FREE, deps.now())
      : { cancel_at_period_end: true, current_period_end: standing.currentPeriodEnd };
    return present(await applyDirect(deps, auth.accountId, change), deps);
  }
  const reported = input.immediate
    ? await deps.provider.cancelNow(subscriptionId)
    : await deps.provider.setCancelAtPeriodEnd(subscriptionId, true);
  return present(await applyReported(deps, auth.accountId, reported), deps);
}

/** POST /api/billing/reactivate-subscription: undoes a cancellation before the period ends. */
export async function reactivateSubscription(
  deps: BillingDeps,
  auth: AuthContext,
): Promise<Subscription> {
  requireOwner(auth);
  const row = await subscriptionRow(deps, auth.accountId);
  const standing = standingOf(row, deps.now(), deps.provider);
  if (standing.plan.id === FREE_PLAN_ID) {
    throw conflict('There is no subscription to reactivate: choose a plan instead');
  }
  if (!standing.cancelAtPeriodEnd) return present(row, deps);
  const subscriptionId = deps.provider.kind === 'none' ? null : row.provider_subscription_id;
  if (!subscriptionId) {
    return present(await applyDirect(deps, auth.accountId, { cancel_at_period_end: false }), deps);
  }
  const reported = await deps.provider.setCancelAtPeriodEnd(subscriptionId, false);
  return present(await applyReported(deps, auth.accountId, reported), deps);
}

// ── the operator ────────────────────────────────────────────────────────────

/**
 * `engram plan set <email> <plan>`: the operator moves the account the
 * person owns (their personal account: the first they own) to a plan at
 * once, a new period starting now. Only without a payment provider; with
 * Stripe the subscription is changed there, and its events follow.
 */
export async function setPlanByOperator(
  deps: BillingDeps,
  email: string,
  planId: string,
): Promise<{ email: string; from: Plan; to: Plan }> {
  if (deps.provider.kind !== 'none') {
    throw conflict(
      'Plans on this server are paid through Stripe: change the subscription in Stripe, not here.',
    );
  }
  const plan = PLANS.find((candidate) => candidate.id === planId);
  if (!plan) {
    throw badRequest(
      'plan',
      `Unknown plan "${planId}". Plans: ${PLANS.map((candidate) => candidate.id).join(', ')}.`,
    );
  }
  const address = email.trim().toLowerCase();
  const accountId = await repo.accountOwnedBy(deps.db, address);
  if (!accountId) {
    throw notFoundBecause(`No account on this server is owned by ${address}.`);
  }
  const before = await subscriptionRow(deps, accountId);
  const from = standingOf(before, deps.now(), deps.provider).plan;
  await applyDirect(deps, accountId, directChange(plan, deps.now()));
  return { email: address, from, to: plan };
}

/**
 * The account is being deleted: its paid subscription ends at the provider
 * now, not at the period end, so nobody is billed for an account that is
 * gone. Without a provider there is nothing to call (the row goes with the
 * account). A provider that refuses or cannot be reached throws, and the
 * deletion does not go ahead; one that says the subscription already ended
 * is fine.
 */
export async function cancelForDeletion(deps: BillingDeps, accountId: string): Promise<void> {
  const row = await repo.findSubscription(deps.db, accountId);
  const subscriptionId = deps.provider.kind === 'none' ? null : row?.provider_subscription_id;
  if (!row || !subscriptionId || row.plan_id === FREE_PLAN_ID) return;
  let reported: ProviderSubscription;
  try {
    reported = await deps.provider.cancelNow(subscriptionId);
  } catch (error) {
    const now = await deps.provider.getSubscription(subscriptionId).catch(() => undefined);
    if (!now || !ENDED.has(now.status)) {
      const unavailable = serviceUnavailable(
        'Your subscription could not be cancelled with the payment provider, so nothing was deleted. Try again in a few minutes.',
        60,
      );
      deps.onError?.(error, 'subscription could not be cancelled for an account deletion');
      throw unavailable;
    }
    reported = now;
  }
  await applyReported(deps, accountId, reported);
}
