import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** The account's subscription row: the plan, its standing, and the provider's ids. */
export interface SubscriptionRow {
  account_id: string;
  plan_id: string;
  status: string;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  provider: string;
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  /** The provider read last applied (`takeReadNumber`): an earlier-begun read changes nothing. */
  provider_read_seq: number;
  grace_plan_id: string | null;
  grace_until: Date | null;
}

const SUBSCRIPTION_COLUMNS = [
  'account_id',
  'plan_id',
  'status',
  'cancel_at_period_end',
  'current_period_end',
  'provider',
  'provider_customer_id',
  'provider_subscription_id',
  'provider_read_seq',
  'grace_plan_id',
  'grace_until',
] as const;

function toRow(row: Omit<SubscriptionRow, 'provider_read_seq'> & { provider_read_seq: unknown }) {
  return { ...row, provider_read_seq: Number(row.provider_read_seq) } as SubscriptionRow;
}

export async function findSubscription(
  db: Db,
  accountId: string,
): Promise<SubscriptionRow | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/** The row, locked until the transaction ends (webhooks and plan changes apply one at a time). */
export async function lockSubscription(
  trx: Db,
  accountId: string,
): Promise<SubscriptionRow | undefined> {
  const row = await trx
    .selectFrom('subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export interface SubscriptionChange {
  plan_id?: string;
  status?: string;
  cancel_at_period_end?: boolean;
  current_period_end?: Date | null;
  provider?: string;
  provider_customer_id?: string | null;
  provider_subscription_id?: string | null;
  provider_read_seq?: number;
  grace_plan_id?: string | null;
  grace_until?: Date | null;
}

export async function updateSubscription(
  db: Db,
  accountId: string,
  change: SubscriptionChange,
  now: Date,
): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set({ ...change, updated_at: now })
    .where('account_id', '=', accountId)
    .execute();
}

/**
 * The number of a read of the provider about to begin (one sequence for
 * every node): a read with a higher number began later, so saw at least as
 * new a state.
 */
export async function takeReadNumber(db: Db): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select nextval('billing_provider_reads') as n`.execute(db);
  return Number(rows[0]!.n);
}

/** Stores the provider's customer id unless one is already there; returns the one kept. */
export async function claimCustomerId(
  db: Db,
  accountId: string,
  customerId: string,
): Promise<string | undefined> {
  await db
    .updateTable('subscriptions')
    .set({ provider_customer_id: customerId })
    .where('account_id', '=', accountId)
    .where('provider_customer_id', 'is', null)
    .execute();
  return (await findSubscription(db, accountId))?.provider_customer_id ?? undefined;
}

export async function accountOfCustomer(db: Db, customerId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select('account_id')
    .where('provider_customer_id', '=', customerId)
    .executeTakeFirst();
  return row?.account_id;
}

export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('subscriptions')
    .select('account_id')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The first account the person with this email owns (their personal account), if any. */
export async function accountOwnedBy(db: Db, email: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('account_members', 'account_members.user_id', 'users.id')
    .select('account_members.account_id')
    .where('users.email', '=', email)
    .where('account_members.role', '=', 'owner')
    .orderBy('account_members.created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.account_id;
}

/** Who the provider's customer record is for. */
export async function contactOf(
  db: Db,
  userId: string,
): Promise<{ email: string; name: string } | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['email', 'first_name', 'last_name'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return row ? { email: row.email, name: `${row.first_name} ${row.last_name}`.trim() } : undefined;
}

// ── payment methods ─────────────────────────────────────────────────────────

export interface PaymentMethodRow {
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: boolean;
}

export async function listPaymentMethods(db: Db, accountId: string): Promise<PaymentMethodRow[]> {
  return db
    .selectFrom('payment_methods')
    .select(['id', 'brand', 'last4', 'exp_month', 'exp_year', 'is_default'])
    .where('account_id', '=', accountId)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(100)
    .execute();
}

/** Makes the mirror equal to the provider's list (added, changed and removed cards). */
export async function replacePaymentMethods(
  trx: Db,
  accountId: string,
  methods: Omit<PaymentMethodRow, 'is_default'>[],
  defaultId: string | null,
): Promise<void> {
  const ids = methods.map((method) => method.id);
  let removal = trx.deleteFrom('payment_methods').where('account_id', '=', accountId);
  if (ids.length > 0) removal = removal.where('id', 'not in', ids);
  await removal.execute();
  if (methods.length === 0) return;
  await trx
    .insertInto('payment_methods')
    .values(
      methods.map((method) => ({
        account_id: accountId,
        ...method,
        is_default: method.id === defaultId,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['account_id', 'id']).doUpdateSet((eb) => ({
        brand: eb.ref('excluded.brand'),
        last4: eb.ref('excluded.last4'),
        exp_month: eb.ref('excluded.exp_month'),
        exp_year: eb.ref('excluded.exp_year'),
        is_default: eb.ref('excluded.is_default'),
      })),
    )
    .execute();
}

export async function accountOfPaymentMethod(
  db: Db,
  paymentMethodId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('payment_methods')
    .select('account_id')
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
  return row?.account_id;
}

export async function hasPaymentMethod(
  db: Db,
  accountId: string,
  paymentMethodId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('payment_methods')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function markDefaultPaymentMethod(
  db: Db,
  accountId: string,
  paymentMethodId: string,
): Promise<void> {
  await db
    .updateTable('payment_methods')
    .set((eb) => ({ is_default: eb('id', '=', paymentMethodId).$castTo<boolean>() }))
    .where('account_id', '=', accountId)
    .execute();
}

export async function deletePaymentMethod(
  db: Db,
  accountId: string,
  paymentMethodId: string,
): Promise<void> {
  await db
    .deleteFrom('payment_methods')
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .execute();
}

// ── invoices ────────────────────────────────────────────────────────────────

export interface InvoiceRow {
  id: string;
  number: string | null;
  created: Date;
  amount: number;
  currency: string;
  status: string;
  hosted_invoice_url: string | null;
  invoice_pdf: string | null;
}

export async function listInvoices(
  db: Db,
  accountId: string,
  limit: number,
): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .select([
      'id',
      'number',
      'created',
      'amount',
      'currency',
      'status',
      'hosted_invoice_url',
      'invoice_pdf',
    ])
    .where('account_id', '=', accountId)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Writes the invoice unless what is stored came from a later provider event. */
export async function upsertInvoice(
  trx: Db,
  accountId: string,
  invoice: InvoiceRow,
  syncedAt: number,
): Promise<void> {
  await trx
    .insertInto('invoices')
    .values({ account_id: accountId, ...invoice, provider_synced_at: syncedAt })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'id'])
        .doUpdateSet((eb) => ({
          number: eb.ref('excluded.number'),
          created: eb.ref('excluded.created'),
          amount: eb.ref('excluded.amount'),
          currency: eb.ref('excluded.currency'),
          status: eb.ref('excluded.status'),
          hosted_invoice_url: eb.ref('excluded.hosted_invoice_url'),
          invoice_pdf: eb.ref('excluded.invoice_pdf'),
          provider_synced_at: eb.ref('excluded.provider_synced_at'),
        }))
        .where('invoices.provider_synced_at', '<=', syncedAt),
    )
    .execute();
}

// ── webhook events ──────────────────────────────────────────────────────────

export async function eventSeen(db: Db, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('billing_events')
    .select('id')
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records the event as applied; false when it already was (a replay that raced this one). */
export async function recordEvent(
  trx: Db,
  event: { id: string; type: string; accountId: string | null },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('billing_events')
    .values({ id: event.id, type: event.type, account_id: event.accountId })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Forgets events older than the provider ever redelivers. */
export async function pruneEvents(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('billing_events').where('received_at', '<', before).execute();
}
