import type { ColumnType, Generated } from 'kysely';

/** Row types of every table, as Kysely sees them. Tenant tables lead with account_id; graph tables with space_id (migration 022). */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type OptionalTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
type Json = ColumnType<Record<string, unknown>, string, string>;

export interface AccountsTable {
  id: Generated<string>;
  name: string;
  /** Last change-log sequence number handed out; bumped in each write transaction. */
  event_seq: ColumnType<string | number, never, string | number>;
  /** Bytes the account stores: its graph, kept by triggers (migration 006), and its change log (012). */
  stored_bytes: ColumnType<string | number, never, never>;
  /** Every change-log event up to this seq was compacted (migration 012). */
  events_compacted_seq: ColumnType<string | number, never, string | number>;
  /** Graph totals, kept by the same triggers (migration 008). */
  entity_count: ColumnType<string | number, never, never>;
  relation_count: ColumnType<string | number, never, never>;
  observation_count: ColumnType<string | number, never, never>;
  /** Set when the account was deleted: its rows are being purged (migration 014). */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The part of stored_bytes history holds (migration 026). */
  history_bytes: ColumnType<string | number, never, never>;
  /** History is complete after this seq and time: compaction raises them (migration 026). */
  history_seq: ColumnType<string | number, never, string | number>;
  history_at: ColumnType<Date | null, never, Date | null>;
  /** The time of the account's last recorded call (migration 030). */
  last_event_at: ColumnType<Date | null, never, Date | null>;
  created_at: Generated<Date>;
}

/** A memory space: a separate graph inside an account (migration 022). The default one's id is the account's. */
export interface SpacesTable {
  id: Generated<string>;
  account_id: string;
  slug: string;
  name: string;
  entity_count: ColumnType<string | number, never, never>;
  relation_count: ColumnType<string | number, never, never>;
  observation_count: ColumnType<string | number, never, never>;
  /** Set when the space was deleted: its rows are being purged. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Generated<Date>;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AccountMembersTable {
  account_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  created_at: Generated<Date>;
  last_active_at: Timestamp | null;
}

export interface AccountInvitationsTable {
  account_id: string;
  id: Generated<string>;
  email: string;
  role: 'admin' | 'member' | 'viewer';
  token_hash: string;
  invited_by: string | null;
  expires_at: Timestamp;
  created_at: Generated<Date>;
}

export interface SessionsTable {
  account_id: string;
  id: Generated<string>;
  user_id: string;
  token_hash: string;
  expires_at: Timestamp;
  created_at: Generated<Date>;
}

export interface SubscriptionsTable {
  account_id: string;
  plan_id: string;
  status: string;
  cancel_at_period_end: Generated<boolean>;
  current_period_end: Timestamp | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Billing mirror (migration 009). */
  provider: Generated<string>;
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  /** The provider read last applied (`billing_provider_reads`, migration 015). */
  provider_read_seq: ColumnType<string | number, string | number | undefined, string | number>;
  grace_plan_id: string | null;
  grace_until: Timestamp | null;
}

export interface PaymentMethodsTable {
  account_id: string;
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: Generated<boolean>;
  created_at: Generated<Date>;
}

export interface InvoicesTable {
  account_id: string;
  id: string;
  number: string | null;
  created: Timestamp;
  amount: number;
  currency: Generated<string>;
  status: string;
  hosted_invoice_url: string | null;
  invoice_pdf: string | null;
  provider_synced_at: ColumnType<string | number, string | number | undefined, string | number>;
}

export interface BillingEventsTable {
  id: string;
  type: string;
  account_id: string | null;
  received_at: Generated<Date>;
}

export interface EntitiesTable {
  space_id: string;
  id: Generated<string>;
  /** Creation order, also among rows created in the same instant. */
  ordinal: ColumnType<string, never, never>;
  name: string;
  type: string;
  /** `json`, not `jsonb`: the text as written, so its keys keep their order (migration 013). */
  metadata: Json;
  /** Other names it goes by (migration 032); every by-name door resolves them. */
  aliases: Generated<string[]>;
  observations_count: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ObservationsTable {
  space_id: string;
  id: Generated<string>;
  entity_id: string;
  content: string;
  /** `json`, as entities' metadata (migration 013). */
  metadata: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  position: number;
  created_at: Generated<Date>;
  /** When the fact held in the world, as its writer said (migration 026). */
  valid_from: OptionalTimestamp;
  valid_to: OptionalTimestamp;
  /** The content's English words, computed by the database (migration 018): read by recall's SQL only. */
  terms: ColumnType<string | null, never, never>;
}

export interface RelationsTable {
  space_id: string;
  id: Generated<string>;
  ordinal: ColumnType<string, never, never>;
  from_id: string;
  to_id: string;
  type: string;
  created_at: Generated<Date>;
  valid_from: OptionalTimestamp;
  valid_to: OptionalTimestamp;
}

/** Relations touching each entity, kept in the write transaction ("best-connected"). */
export interface EntityDegreesTable {
  space_id: string;
  entity_id: string;
  degree: number;
}

export interface EntityTypeCountsTable {
  space_id: string;
  type: string;
  count: number;
}

/** Relations per type (migration 016), kept by a trigger on `relations`. */
export type RelationTypeCountsTable = EntityTypeCountsTable;

export interface GraphEventsTable {
  account_id: string;
  space_id: string;
  seq: ColumnType<string | number, string | number, never>;
  type: string;
  payload: Json;
  actor: Json;
  at: Generated<Date>;
  /** What the event counts for in the account's stored_bytes. */
  bytes: Generated<number>;
}

/** A graph row as it was before a call changed it (migration 026); `before` null: the call created it. */
export interface GraphHistoryTable {
  space_id: string;
  seq: ColumnType<string | number, string | number, never>;
  kind: 'e' | 'o' | 'r';
  row_id: string;
  entity_id: string;
  other_id: string | null;
  before: Json | null;
  bytes: number;
}

/** One write call: its seqs, who made it, and the revert that undid it (migration 026). */
export interface GraphCallsTable {
  account_id: string;
  seq: ColumnType<string | number, string | number, never>;
  last_seq: ColumnType<string | number, string | number, never>;
  space_id: string;
  actor: Json;
  at: Timestamp;
  reverts: ColumnType<string | number | null, string | number | null, never>;
  reverted_by: ColumnType<string | number | null, string | number | null, string | number | null>;
}

/** A position in an account's change log that a reader still needs (compaction stops before it). */
export interface ChangeLogHoldsTable {
  account_id: string;
  reader: string;
  seq: ColumnType<string | number, string | number, string | number>;
  updated_at: Generated<Date>;
}

/** The running export of an account, one at a time on every node (migration 017). */
export interface ExportLeasesTable {
  account_id: string;
  holder: string;
  expires_at: Timestamp;
}

export interface InstanceSettingsTable {
  name: string;
  value: string;
}

export interface ApiKeysTable {
  account_id: string;
  id: Generated<string>;
  kind: 'account' | 'personal';
  name: string;
  key_hash: string;
  key_preview: string;
  created_by: string;
  expires_at: Timestamp | null;
  rolled_from: string | null;
  replaced_by: string | null;
  /** Normalized grants (`spaces:*:read`…); empty, full access (migration 023). */
  permissions: Generated<string[]>;
  last_used_at: Timestamp | null;
  total_requests: ColumnType<string | number, never, string | number>;
  created_at: Generated<Date>;
}

export interface ApiKeyUsageDaysTable {
  account_id: string;
  key_id: string;
  day: ColumnType<Date | string, string, string>;
  requests: number;
}

export interface UsageDailyTable {
  account_id: string;
  day: ColumnType<Date | string, string, string>;
  operation_type: 'query' | 'create' | 'update' | 'delete';
  resource_type: string;
  count: number;
  total_ms: number;
}

/** Entities created per account and day (UTC), kept by a trigger on entities (migration 008). */
export interface GraphDailyTable {
  account_id: string;
  day: ColumnType<Date | string, string, string>;
  entities_created: number;
}

/**
 * Operations per account and month: `count` mirrors usage_daily (triggers),
 * `reserved` holds those admitted but not yet flushed there (migration 008).
 */
export interface UsageMonthlyTable {
  account_id: string;
  month: ColumnType<Date | string, string, string>;
  count: ColumnType<string | number, string | number | undefined, string | number>;
  reserved: ColumnType<string | number, string | number | undefined, string | number>;
}

export interface AuthThrottleTable {
  scope: 'login' | 'password' | 'register';
  subject: string;
  failures: number;
  window_start: Date;
  locked_until: Date | null;
}

/** A record of the OAuth authorization server (migration 021): a client, code, token, grant, session. */
export interface OAuthModelsTable {
  kind: string;
  id: string;
  payload: Json;
  grant_id: string | null;
  uid: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
}

/** Whose an OAuth grant is: the Engram account and user that consented (migration 021). */
export interface OAuthGrantsTable {
  account_id: string;
  id: string;
  user_id: string;
  client_id: string;
  client_name: string | null;
  client_logo_uri: string | null;
  client_uri: string | null;
  created_at: Generated<Date>;
  last_used_at: Date | null;
}

/** An account's webhook endpoint and where its delivery stands (migration 025). */
export interface WebhookEndpointsTable {
  id: Generated<string>;
  account_id: string;
  space_id: string | null;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  delivered_seq: ColumnType<string, string | number, string | number>;
  retry_at: Date | null;
  failing_since: Date | null;
  lease_holder: string | null;
  lease_until: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One event's delivery to one endpoint, or a test send or redelivery (migration 025). */
export interface WebhookDeliveriesTable {
  id: Generated<string>;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  seq: ColumnType<string | null, string | number | null, string | number | null>;
  status: 'pending' | 'retrying' | 'succeeded' | 'failed';
  attempt: Generated<number>;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_retry_at: Date | null;
  manual: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Per account: how far the duplicate finder has applied the change log, and its scan (migration 031). */
export interface DuplicateStateTable {
  account_id: string;
  applied_seq: ColumnType<string | number, string | number | undefined, string | number>;
  scan_seq: ColumnType<
    string | number | null,
    string | number | null | undefined,
    string | number | null
  >;
  scan_space: string | null;
  scan_cursor: string | null;
  lease_holder: string | null;
  lease_until: Date | null;
  updated_at: Generated<Date>;
  /** The entity compared alone after a run that stopped mid-way (migration 034). */
  working_space: string | null;
  working_ids: string[] | null;
}

/** An entity the duplicate finder could not compare, skipped until it is renamed (migration 034). */
export interface DuplicateFailuresTable {
  space_id: string;
  entity_id: string;
  /** The error's kind, never a name's text. */
  reason: string;
  failed_seq: ColumnType<string | number, string | number, string | number>;
  failed_at: Generated<Date>;
}

/** An entity's name as the duplicate finder blocks and compares it (migration 031). */
export interface DuplicateNamesTable {
  space_id: string;
  entity_id: string;
  name: string;
  /** 64-bit hashes of the space and each blocking key (bigint: strings). */
  keys: string[];
}

/** A candidate pair of duplicates, `entity_a` < `entity_b` (migration 031). */
export interface DuplicatePairsTable {
  space_id: string;
  entity_a: string;
  entity_b: string;
  score: number;
  reasons: string[];
  updated_at: Generated<Date>;
}

/** A pair said not to be one thing, with both names then (migration 031). */
export interface DuplicateDismissalsTable {
  space_id: string;
  entity_a: string;
  entity_b: string;
  name_a: string;
  name_b: string;
  dismissed_seq: ColumnType<string | number, string | number, string | number>;
  dismissed_at: Generated<Date>;
}

export interface Database {
  auth_throttle: AuthThrottleTable;
  usage_daily: UsageDailyTable;
  usage_monthly: UsageMonthlyTable;
  graph_daily: GraphDailyTable;
  instance_settings: InstanceSettingsTable;
  api_keys: ApiKeysTable;
  api_key_usage_days: ApiKeyUsageDaysTable;
  accounts: AccountsTable;
  spaces: SpacesTable;
  users: UsersTable;
  account_members: AccountMembersTable;
  account_invitations: AccountInvitationsTable;
  sessions: SessionsTable;
  subscriptions: SubscriptionsTable;
  payment_methods: PaymentMethodsTable;
  invoices: InvoicesTable;
  billing_events: BillingEventsTable;
  entities: EntitiesTable;
  observations: ObservationsTable;
  relations: RelationsTable;
  entity_type_counts: EntityTypeCountsTable;
  relation_type_counts: RelationTypeCountsTable;
  entity_degrees: EntityDegreesTable;
  graph_events: GraphEventsTable;
  graph_history: GraphHistoryTable;
  graph_calls: GraphCallsTable;
  export_leases: ExportLeasesTable;
  change_log_holds: ChangeLogHoldsTable;
  oauth_models: OAuthModelsTable;
  oauth_grants: OAuthGrantsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  duplicate_state: DuplicateStateTable;
  duplicate_names: DuplicateNamesTable;
  duplicate_pairs: DuplicatePairsTable;
  duplicate_dismissals: DuplicateDismissalsTable;
  duplicate_failures: DuplicateFailuresTable;
}
