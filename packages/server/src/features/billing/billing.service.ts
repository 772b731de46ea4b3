import {
  BILLING_NOT_FOUND,
  BILLING_OWNER_ONLY,
  FREE_PLAN_ID,
  PLAN_CHANGES_BY_OPERATOR,
  PLANS,
  planById,
  tierRank,
  type BillingPlan,
  type ChangePlanInput,
  type CheckoutInput,
  type Invoice,
  type PaymentMethod,
  type Plan,
  type PlanChanges,
  type PlanFeaturesView,
  type SetupIntent,
  type Subscription,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import { AppError, badRequest, conflict, forbidden } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as repo from './billing.repository.js';
import { paymentsNotConfigured } from './none-provider.js';
import type {
  BillingProvider,
  ProviderInvoice,
  ProviderSubscription,
  VerifiedEvent,
} from './provider.js';

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
  /** Called once an account's subscription changed (what this node keeps of its plan is read again). */
  planChanged?: ((accountId: string) => void) | undefined;
}

/** Provider states in which a paid plan is in force. */
const LIVE = new Set(['active', 'trialing']);
/** Provider states after which a subscription never comes back. */
const ENDED = new Set(['canceled', 'incomplete_expired']);
/** Stripe redelivers an event for up to 3 days; ids are kept well past that. */
const EVENT_MEMORY_DAYS = 30;
const INVOICES_MAX = 100;

const FREE = planById(FREE_PLAN_ID);
const notFound = () => new AppError(404, 'NOT_FOUND', BILLING_NOT_FOUND);

// ── entitlements ────────────────────────────────────────────────────────────

/** What decides an account's plan at any moment (its subscription); `effectivePlan` judges it. */
export type EntitlementRow = Pick<
  repo.SubscriptionRow,
  | 'plan_id'
  | 'status'
  | 'cancel_at_period_end'
  | 'current_period_end'
  | 'grace_plan_id'
  | 'grace_until'
>;

/**
 * The plan whose limits apply now. A paid plan applies while its
 * subscription is active (or trialing); a lapsed or failed one (past due,
 * unpaid, cancelled, or set to cancel and past its period end) falls back to
 * the free limits — nothing is deleted, the account just cannot grow past
 * them. After a downgrade the plan it was on stays in force until that
 * period ends (`grace_*`, pricing FAQ): `plan_id` is the plan it moves to.
 * Nothing has to run at the period end: the row is judged against `now`
 * whenever it is read. No row means free.
 */
export function effectivePlan(row: EntitlementRow | undefined, now: Date): Plan {
  if (!row) return FREE;
  const plan = planById(row.plan_id);
  if (plan.id === FREE_PLAN_ID) return FREE;
  if (!LIVE.has(row.status)) return FREE;
  if (row.cancel_at_period_end && row.current_period_end && row.current_period_end <= now) {
    return FREE;
  }
  return pendingDowngrade(row, now)?.from ?? plan;
}

/**
 * A downgrade not yet due: the plan still in force (`from`), the plan the
 * row moves to, and when. A grace plan that is not above the row's plan (an
 * upgrade since) is no downgrade.
 */
function pendingDowngrade(
  row: EntitlementRow,
  now: Date,
): { from: Plan; to: Plan; at: Date } | null {
  if (!row.grace_plan_id || !row.grace_until || row.grace_until <= now) return null;
  const from = planById(row.grace_plan_id);
  const to = planById(row.plan_id);
  if (from.id === to.id || isUpgrade(from, to)) return null;
  return { from, to, at: row.grace_until };
}

/** The plan whose limits apply to the account now (spec §9); other features call this. */
export async function currentPlan(db: Db, accountId: string, now = new Date()): Promise<Plan> {
  return effectivePlan(await entitlementOf(db, accountId), now);
}

/** The account's subscription as `effectivePlan` reads it (undefined: none, so free). */
export async function entitlementOf(
  db: Db,
  accountId: string,
): Promise<EntitlementRow | undefined> {
  return repo.findSubscription(db, accountId);
}

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

async function subscriptionRow(deps: BillingDeps, accountId: string) {
  const row = await repo.findSubscription(deps.db, accountId);
  if (!row) throw notFound();
  return row;
}

async function requireOwner(deps: BillingDeps, auth: AuthContext): Promise<void> {
  if ((await repo.memberRole(deps.db, auth.accountId, auth.userId)) !== 'owner') {
    throw forbidden(BILLING_OWNER_ONLY);
  }
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

function paymentMethodOf(row: repo.PaymentMethodRow): PaymentMethod {
  return {
    id: row.id,
    brand: row.brand,
    last4: row.last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    isDefault: row.is_default,
  };
}

/**
 * The account's cards. With a provider, its list is read and the mirror
 * brought up to date first (a card added a moment ago shows even before its
 * webhook arrives); if the provider cannot be reached, the mirror answers.
 */
export async function listPaymentMethods(
  deps: BillingDeps,
  auth: AuthContext,
): Promise<PaymentMethod[]> {
  const row = await subscriptionRow(deps, auth.accountId);
  if (row.provider_customer_id && deps.provider.kind !== 'none') {
    try {
      const live = await deps.provider.listPaymentMethods(row.provider_customer_id);
      await repo.replacePaymentMethods(
        deps.db,
        auth.accountId,
        live.methods.map(methodRow),
        live.defaultId,
      );
    } catch (error) {
      deps.onError?.(error, 'payment methods could not be read from the provider');
    }
  }
  return (await repo.listPaymentMethods(deps.db, auth.accountId)).map(paymentMethodOf);
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

const methodRow = (method: {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}) => ({
  id: method.id,
  brand: method.brand,
  last4: method.last4,
  exp_month: method.expMonth,
  exp_year: method.expYear,
});

async function ensureCustomer(
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

export async function createSetupIntent(
  deps: BillingDeps,
  auth: AuthContext,
): Promise<SetupIntent> {
  await requireOwner(deps, auth);
  if (deps.provider.kind === 'none') throw paymentsNotConfigured();
  const row = await subscriptionRow(deps, auth.accountId);
  return deps.provider.createSetupIntent(await ensureCustomer(deps, auth, row));
}

/** The catalog plan a price id names: the provider's id, or the catalog's own (the pricing page's). */
function planOfPrice(deps: BillingDeps, priceId: string): Plan | undefined {
  return PLANS.find(
    (plan) =>
      plan.priceId !== null &&
      (deps.provider.priceIdOf(plan.id) === priceId || plan.priceId === priceId),
  );
}

function isUpgrade(from: Plan, to: Plan): boolean {
  const rankFrom = tierRank(from.id);
  const rankTo = tierRank(to.id);
  return (
    rankTo > rankFrom || (rankTo === rankFrom && to.interval === 'year' && from.interval !== 'year')
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
function changeFrom(
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
    if (!row) throw notFound();
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
 * POST /api/billing/change-plan (spec §4): a null price moves to free.
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
  await requireOwner(deps, auth);
  const plan = PLANS.find((candidate) => candidate.id === input.planId);
  if (!plan) throw notFound();
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
  await requireOwner(deps, auth);
  requireSelfService(deps);
  const plan = planOfPrice(deps, input.priceId);
  if (!plan) throw notFound();
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

/** POST /api/billing/cancel-subscription: at the period end (spec §4), or now with immediate. */
export async function cancelSubscription(
  deps: BillingDeps,
  auth: AuthContext,
  input: { immediate: boolean },
): Promise<Subscription> {
  await requireOwner(deps, auth);
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
  await requireOwner(deps, auth);
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
    throw new AppError(404, 'NOT_FOUND', `No account on this server is owned by ${address}.`);
  }
  const before = await subscriptionRow(deps, accountId);
  const from = standingOf(before, deps.now(), deps.provider).plan;
  await applyDirect(deps, accountId, directChange(plan, deps.now()));
  return { email: address, from, to: plan };
}

async function ownPaymentMethod(
  deps: BillingDeps,
  auth: AuthContext,
  paymentMethodId: string,
): Promise<string> {
  await requireOwner(deps, auth);
  const row = await subscriptionRow(deps, auth.accountId);
  const customerId = row.provider_customer_id;
  if (!customerId || !(await repo.hasPaymentMethod(deps.db, auth.accountId, paymentMethodId))) {
    throw new AppError(404, 'NOT_FOUND', 'Payment method not found');
  }
  return customerId;
}

export async function setDefaultPaymentMethod(
  deps: BillingDeps,
  auth: AuthContext,
  paymentMethodId: string,
): Promise<void> {
  const customerId = await ownPaymentMethod(deps, auth, paymentMethodId);
  await deps.provider.setDefaultPaymentMethod(customerId, paymentMethodId);
  await repo.markDefaultPaymentMethod(deps.db, auth.accountId, paymentMethodId);
}

export async function removePaymentMethod(
  deps: BillingDeps,
  auth: AuthContext,
  paymentMethodId: string,
): Promise<void> {
  await ownPaymentMethod(deps, auth, paymentMethodId);
  await deps.provider.detachPaymentMethod(paymentMethodId);
  await repo.deletePaymentMethod(deps.db, auth.accountId, paymentMethodId);
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
      const unavailable = new AppError(
        503,
        'SERVICE_UNAVAILABLE',
        'Your subscription could not be cancelled with the payment provider, so nothing was deleted. Try again in a few minutes.',
      );
      unavailable.retryAfterSeconds = 60;
      deps.onError?.(error, 'subscription could not be cancelled for an account deletion');
      throw unavailable;
    }
    reported = now;
  }
  await applyReported(deps, accountId, reported);
}

// ── webhooks ────────────────────────────────────────────────────────────────

async function knownAccount(deps: BillingDeps, accountId: string | null) {
  return accountId && isUuid(accountId) && (await repo.accountExists(deps.db, accountId))
    ? accountId
    : undefined;
}

async function accountOf(deps: BillingDeps, customerId: string | null, fallback: string | null) {
  return (
    (customerId ? await repo.accountOfCustomer(deps.db, customerId) : undefined) ??
    (await knownAccount(deps, fallback))
  );
}

/** The customer's subscriptions as the provider had them, and the number of that read. */
interface SubscriptionsRead {
  read: number;
  list: ProviderSubscription[];
}

type Work =
  | { kind: 'none' }
  | { kind: 'subscription'; accountId: string; subscriptions: SubscriptionsRead | null }
  | {
      kind: 'invoice';
      accountId: string;
      invoice: ProviderInvoice;
      subscriptions: SubscriptionsRead | null;
    }
  | {
      kind: 'payment-methods';
      accountId: string;
      list: Awaited<ReturnType<BillingProvider['listPaymentMethods']>>;
    };

/**
 * Reads the customer's subscriptions from the provider now, whatever the
 * event said: the provider's timestamps are whole seconds, so two events of
 * one second cannot be ordered by them, but the state read now is the
 * newest. The read's number is taken before it starts (`takeReadNumber`).
 */
async function readSubscriptions(
  deps: BillingDeps,
  accountId: string,
  customerId: string | null,
): Promise<SubscriptionsRead | null> {
  const customer =
    customerId || (await repo.findSubscription(deps.db, accountId))?.provider_customer_id;
  if (!customer) return null;
  const read = await repo.takeReadNumber(deps.db);
  return { read, list: await deps.provider.listSubscriptions(customer) };
}

/**
 * The subscription that decides the account's plan among the customer's
 * (newest first): the one it has while that is still going, else the newest
 * going one of a plan this server sells; with none going, the one it had
 * (ended: back to free). Undefined: nothing to apply.
 */
function decidingSubscription(
  list: ProviderSubscription[],
  row: repo.SubscriptionRow,
): ProviderSubscription | undefined {
  const going = list.filter((sub) => !ENDED.has(sub.status) && sub.planId !== null);
  return (
    going.find((sub) => sub.id === row.provider_subscription_id) ??
    going[0] ??
    list.find((sub) => sub.id === row.provider_subscription_id)
  );
}

/** Reads what an event needs from the provider, outside any transaction. */
async function prepare(deps: BillingDeps, verified: VerifiedEvent): Promise<Work> {
  const event = verified.event;
  switch (event.kind) {
    case 'checkout-completed': {
      const accountId = await accountOf(deps, event.customerId, event.accountId);
      if (!accountId || !event.subscriptionId) return { kind: 'none' };
      if (event.customerId) await repo.claimCustomerId(deps.db, accountId, event.customerId);
      const subscriptions = await readSubscriptions(deps, accountId, event.customerId);
      return { kind: 'subscription', accountId, subscriptions };
    }
    case 'subscription': {
      // The event names whose subscription changed; what it is now is read again.
      const named = event.subscription;
      const accountId = await accountOf(deps, named.customerId, named.accountId);
      if (!accountId) return { kind: 'none' };
      const subscriptions = await readSubscriptions(deps, accountId, named.customerId);
      return { kind: 'subscription', accountId, subscriptions };
    }
    case 'invoice': {
      const { invoice } = event;
      const accountId = await accountOf(deps, invoice.customerId, null);
      if (!accountId) return { kind: 'none' };
      // A paid or failed renewal moves the subscription's status (past due,
      // active again): read it too, even if its own event is late or lost.
      const subscriptions = invoice.subscriptionId
        ? await readSubscriptions(deps, accountId, invoice.customerId)
        : null;
      return { kind: 'invoice', accountId, invoice, subscriptions };
    }
    case 'payment-methods': {
      const accountId =
        (event.customerId ? await repo.accountOfCustomer(deps.db, event.customerId) : undefined) ??
        (event.paymentMethodId
          ? await repo.accountOfPaymentMethod(deps.db, event.paymentMethodId)
          : undefined);
      if (!accountId) return { kind: 'none' };
      const customerId = (await repo.findSubscription(deps.db, accountId))?.provider_customer_id;
      if (!customerId) return { kind: 'none' };
      // The provider's current list, whatever order attach and detach events arrive in.
      return {
        kind: 'payment-methods',
        accountId,
        list: await deps.provider.listPaymentMethods(customerId),
      };
    }
    case 'ignored':
      return { kind: 'none' };
  }
}

/**
 * Applies a read of the subscriptions to the locked row, unless a read that
 * began later was applied already (two deliveries read at once: the slower,
 * older read changes nothing).
 */
async function applySubscriptions(
  trx: Db,
  deps: BillingDeps,
  accountId: string,
  subscriptions: SubscriptionsRead,
): Promise<void> {
  const row = await repo.lockSubscription(trx, accountId);
  if (!row || subscriptions.read <= row.provider_read_seq) return;
  const deciding = decidingSubscription(subscriptions.list, row);
  const change = deciding ? changeFrom(row, deciding, deps) : null;
  await repo.updateSubscription(
    trx,
    accountId,
    { ...change, provider_read_seq: subscriptions.read },
    deps.now(),
  );
}

/** Applies an event's work in one transaction. */
async function apply(trx: Db, deps: BillingDeps, work: Work, created: number): Promise<void> {
  switch (work.kind) {
    case 'none':
      return;
    case 'subscription':
      if (work.subscriptions) {
        await applySubscriptions(trx, deps, work.accountId, work.subscriptions);
      }
      return;
    case 'invoice': {
      const { invoice } = work;
      // The invoice list mirrors the event; an older event of the same invoice changes nothing.
      await repo.upsertInvoice(
        trx,
        work.accountId,
        {
          id: invoice.id,
          number: invoice.number,
          created: new Date(invoice.created * 1000),
          amount: invoice.amount,
          currency: invoice.currency,
          status: invoice.status,
          hosted_invoice_url: invoice.hostedInvoiceUrl,
          invoice_pdf: invoice.invoicePdf,
        },
        created,
      );
      if (work.subscriptions) {
        await applySubscriptions(trx, deps, work.accountId, work.subscriptions);
      }
      return;
    }
    case 'payment-methods':
      await repo.replacePaymentMethods(
        trx,
        work.accountId,
        work.list.methods.map(methodRow),
        work.list.defaultId,
      );
      return;
  }
}

/**
 * POST /api/billing/webhook: the provider's event, verified over the raw
 * body. Each event id is applied once (a replay answers `duplicate`), and a
 * subscription is applied as the provider has it when the event arrives,
 * not as the event tells it, so redeliveries and out-of-order deliveries
 * leave the account right.
 */
export async function handleWebhook(
  deps: BillingDeps,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<{ received: true; duplicate?: true }> {
  const verified = deps.provider.verifyWebhook(rawBody, signature);
  if (await repo.eventSeen(deps.db, verified.id)) return { received: true, duplicate: true };
  const work = await prepare(deps, verified);
  const accountId = work.kind === 'none' ? null : work.accountId;
  const applied = await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.recordEvent(trx, { id: verified.id, type: verified.type, accountId }))) {
      return false;
    }
    await apply(trx, deps, work, verified.created);
    return true;
  });
  if (applied && accountId) deps.planChanged?.(accountId);
  await repo.pruneEvents(deps.db, new Date(deps.now().getTime() - EVENT_MEMORY_DAYS * 86_400_000));
  return applied ? { received: true } : { received: true, duplicate: true };
}
