import type { Db } from '../../db/connection.js';
import { isUuid } from '../../lib/ids.js';
import * as repo from './billing.repository.js';
import { changeFrom, ENDED, type BillingDeps } from './subscriptions.service.js';
import { methodRow } from './payment-methods.service.js';
import type {
  BillingProvider,
  ProviderInvoice,
  ProviderSubscription,
  VerifiedEvent,
} from './billing-provider.js';

/**
 * The payment provider's (Stripe's) inbound webhook events, not the outbound
 * webhooks of features/webhooks: each verified event applied once, the
 * account's subscriptions as the provider has them when it arrives, its
 * invoices and cards mirrored.
 */

/** Stripe redelivers an event for up to 3 days; ids are kept well past that. */
const EVENT_MEMORY_DAYS = 30;

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
export async function handleStripeEvent(
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
