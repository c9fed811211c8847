import type { Generated } from 'kysely'

/**
 * The tables as Kysely sees them. Times are integer microseconds since the Unix epoch and
 * money is integer minor units, so both stores compare, sort and add them the same way.
 * Booleans are 0/1 integers for the same reason.
 */
export interface Database {
  merchants: MerchantsTable
  merchant_limits: MerchantLimitsTable
  api_keys: ApiKeysTable
  webhook_secrets: WebhookSecretsTable
  channel_routes: ChannelRoutesTable
  fee_schedule: FeeScheduleTable
  balances: BalancesTable
  counters: CountersTable
  status_buckets: StatusBucketsTable
  operations: OperationsTable
  ledger_entries: LedgerEntriesTable
  settings: SettingsTable
  events: EventsTable
  event_attempts: EventAttemptsTable
  scheduled_work: ScheduledWorkTable
  operator_references: OperatorReferencesTable
  members: MembersTable
  member_recovery_codes: MemberRecoveryCodesTable
  invitations: InvitationsTable
  dashboard_sessions: DashboardSessionsTable
  audit_log: AuditLogTable
  address_attempts: AddressAttemptsTable
  secret_attempts: SecretAttemptsTable
  operator_hours: OperatorHoursTable
  payout_batches: PayoutBatchesTable
  payout_batch_items: PayoutBatchItemsTable
  payment_links: PaymentLinksTable
  platform_members: PlatformMembersTable
  platform_member_recovery_codes: MemberRecoveryCodesTable
  platform_invitations: PlatformInvitationsTable
  platform_sessions: PlatformSessionsTable
  platform_audit_log: PlatformAuditLogTable
  reconciliation_runs: ReconciliationRunsTable
  reconciliation_breaks: ReconciliationBreaksTable
  reconciliation_break_history: ReconciliationBreakHistoryTable
  reconciliation_files: ReconciliationFilesTable
}

export interface MerchantsTable {
  id: string
  name: string
  status: 'active' | 'suspended'
  created_at_us: number
  /** 1: the merchant's API payout batches wait for a member's approval. */
  require_batch_approval: Generated<number>
  /** When the platform paused the merchant's payouts; null while they are not paused. */
  payouts_paused_at_us: number | null
  payouts_paused_reason: string | null
}

/** The platform's limits of a merchant in one mode and currency (migration 0015); null: none. */
export interface MerchantLimitsTable {
  merchant_id: string
  mode: 'sandbox' | 'live'
  currency: string
  max_amount_minor: number | null
  daily_payout_limit_minor: number | null
}

export interface ApiKeysTable {
  api_key: string
  merchant_id: string
  mode: 'sandbox' | 'live'
  /** SHA-256 of the secret key, hex. */
  secret_hash: string
  created_at_us: number
  revoked_at_us: number | null
}

export interface WebhookSecretsTable {
  id: Generated<number>
  merchant_id: string
  /** Each mode signs its events with its own secret. */
  mode: Generated<'sandbox' | 'live'>
  /** AES-256-GCM under the service's secrets key: iv.tag.ciphertext, base64. */
  secret_encrypted: string
  created_at_us: number
  /** Set when a newer secret replaces it; it keeps signing until this time. */
  expires_at_us: number | null
}

export interface ChannelRoutesTable {
  channel: string
  country: string
  kind: string
  channel_name: string
  currency: string
  min_amount_minor: number
  max_amount_minor: number
}

export interface FeeScheduleTable {
  /** '*' is the default schedule every merchant falls back to. */
  merchant_id: string
  kind: string
  channel: string
  /** '*' matches every country of the channel. */
  country: string
  percentage_milli: number
  additional_fee_minor: number
  supported_by_account: number
}

export interface BalancesTable {
  merchant_id: string
  mode: string
  currency: string
  /** Sum of succeeded postings. */
  posted_minor: number
  /** Sum of pending holds; the database refuses held > posted, so overdraft cannot happen. */
  held_minor: number
}

/** Operations of one status in one block of list positions (`bucket` = position / the level's block size). */
export interface StatusBucketsTable {
  merchant_id: string
  mode: string
  kind: string
  status: string
  level: number
  bucket: number
  count: number
}

export interface CountersTable {
  merchant_id: string
  mode: string
  /** 'ledger' for transaction references, or an operation kind for list positions. */
  name: string
  value: number
}

export interface OperationsTable {
  id: Generated<number>
  token: string
  merchant_id: string
  mode: string
  kind: string
  /** 1, 2, 3... per merchant, mode and kind: page N of an unfiltered list is a range seek. */
  position: number
  status: string
  merchant_reference: string
  /** SHA-256 of the canonical request, to tell a retry from a reuse of the reference. */
  request_hash: string
  currency: string
  channel: string
  country: string
  phone_number: string
  to_channel: string | null
  to_country: string | null
  to_phone_number: string | null
  /** JSON: the priced sides (one, or from and to) with their customers and side statuses. */
  sides: string
  /** JSON: callbackUrl and the outcome URLs. */
  urls: string
  redirect_url: string | null
  failure_code: string | null
  failure_message: string | null
  initiated_at_us: number
  completed_at_us: number | null
  updated_at_us: number
  /** The operation this one refunds (a refund's collect). */
  refund_of_id: number | null
  refund_of_token: string | null
  /** What may be refunded of this operation: a collect's amount; 0 for kinds nothing refunds. */
  refundable_minor: Generated<number>
  /** What its refunds that are not failed, canceled or error claim; never above refundable_minor. */
  refunded_minor: Generated<number>
  /** JSON: the merchant's metadata, string values under short keys. */
  metadata: string | null
  /** The token of the payment link a collect was paid through. */
  payment_link: string | null
}

export interface LedgerEntriesTable {
  id: Generated<number>
  merchant_id: string
  mode: string
  /** Per merchant and mode, dense: the last part of the reference. */
  sequence: number
  reference: string
  operation_id: number
  operation_kind: string
  /** 'cash-in' | 'cash-out' | 'reversal' */
  type: string
  currency: string
  amount_minor: number
  /** 'pending' (a hold) | 'succeeded' (posted) | 'canceled' (hold released) */
  status: string
  created_at_us: number
  updated_at_us: number
  /** The posted balance right after this entry succeeded; null while pending or when canceled. */
  balance_after_minor: number | null
}

export interface SettingsTable {
  key: string
  value: string
}

export type DeliveryStatus = 'pending' | 'delivered' | 'stopped' | 'given_up' | 'no_callback'

/** The outbox: one row per status an operation takes, written in the transaction that took it. */
export interface EventsTable {
  id: string
  merchant_id: string
  mode: string
  /** 1, 2, 3... per merchant and mode: list pages seek on it. */
  position: number
  /** The operation whose event it is; for a payout batch's own event, the batch's first item's (its anchor). */
  operation_id: number
  /** A payout batch's own event: its subject is the batch, not the operation it is kept beside. */
  payout_batch_id: number | null
  type: string
  /** The exact JSON body POSTed to the callback URL. */
  payload: string
  callback_url: string | null
  created_at_us: number
  delivery_status: DeliveryStatus
  attempts: number
  next_attempt_at_us: number | null
  /** A dispatcher's claim: nobody else sends this event before it expires. */
  lease_owner: string | null
  lease_until_us: number | null
  delivered_at_us: number | null
}

export interface EventAttemptsTable {
  id: Generated<number>
  event_id: string
  number: number
  started_at_us: number
  duration_ms: number
  status_code: number | null
  error: string | null
  /** 'delivered' | 'retry' | 'stopped' | 'given_up' */
  outcome: string
}

/** Work due at a time, kept in the database so a restart or another instance picks it up. */
export interface ScheduledWorkTable {
  id: Generated<number>
  /** 'submit' hands a side to its provider if a crash stopped that; 'poll' asks the provider again; 'expire' cancels what is still pending. */
  kind: string
  operation_id: number
  role: string
  due_at_us: number
  lease_owner: string | null
  lease_until_us: number | null
  attempts: number
  done_at_us: number | null
}

/** Which side of which operation an operator reference names (pawaPay's callbacks give only that). */
export interface OperatorReferencesTable {
  reference: string
  operation_id: number
  role: string
  /** When the last status check of this side began (app/mechanisms/status-check-turns.ts); null before the first. */
  status_checked_at_us: number | null
}

/** People who sign in to a merchant's dashboard. */
export interface MembersTable {
  id: string
  merchant_id: string
  /** Lowercased; unique among members not removed. */
  email: string
  name: string
  role: string
  /** Argon2id; null until the invitation is accepted. */
  password_hash: string | null
  /** The TOTP secret sealed by the secret box; null until enrolled. */
  totp_sealed: string | null
  /** The last TOTP time step accepted: a code of a step at or below it is a replay. */
  totp_last_step: number
  time_zone: string
  created_at_us: number
  updated_at_us: number
  removed_at_us: number | null
}

export interface MemberRecoveryCodesTable {
  member_id: string
  /** SHA-256 of the code, hex. */
  code_hash: string
  created_at_us: number
  used_at_us: number | null
}

export interface InvitationsTable {
  id: string
  merchant_id: string
  email: string
  role: string
  /** SHA-256 of the invitation's token, hex: the token itself is only in the link sent. */
  token_hash: string
  /** 'cli' or the inviting member's id. */
  invited_by: string
  created_at_us: number
  expires_at_us: number
  accepted_at_us: number | null
  revoked_at_us: number | null
  /** The member the acceptance made. */
  member_id: string | null
}

export interface DashboardSessionsTable {
  id: string
  /** SHA-256 of the cookie's token, hex. */
  token_hash: string
  member_id: string
  merchant_id: string
  stage: 'second-factor' | 'enrolment' | 'signed-in'
  created_at_us: number
  last_seen_at_us: number
  absolute_ends_at_us: number
  ended_at_us: number | null
  ended_reason: string | null
  address: string
  user_agent: string
}

/** Who did what to which merchant's account, from the dashboard, the CLI or the API. */
export interface AuditLogTable {
  id: string
  merchant_id: string
  mode: 'sandbox' | 'live' | null
  actor_kind: 'member' | 'cli' | 'api'
  actor_id: string | null
  actor_label: string
  action: string
  target: string
  /** JSON text, never a secret. */
  before_json: string | null
  after_json: string | null
  address: string | null
  at_us: number
}

/** Attempts at a secret from one address in its current window, shared by every instance. */
export interface AddressAttemptsTable {
  address: string
  window_start_us: number
  /** Failed, and being checked now. */
  attempts: number
}

/**
 * Attempts at one subject's secrets (`member:<id>`, `email:<hash>` for an email no member has):
 * its password and codes, at sign-in and at every form that asks for one.
 */
export interface SecretAttemptsTable {
  subject: string
  /** Failed since the last lock or whole sign-in, and being checked now. */
  attempts: number
  locked_until_us: number | null
}

/** A payout batch: one request paying many customers, each item an ordinary disbursement. */
export interface PayoutBatchesTable {
  id: Generated<number>
  token: string
  merchant_id: string
  mode: string
  merchant_reference: string
  request_hash: string
  /** 'awaiting_approval' | 'processing' | 'completed' | 'rejected' | 'canceled' */
  status: string
  currency: string
  item_count: number
  total_minor: number
  callback_url: string | null
  /** JSON: the merchant's metadata. */
  metadata: string | null
  /** Who made it, in words ('API', or a member's name); the member's id when a member did. */
  created_by: string | null
  created_by_member: string | null
  approved_by: string | null
  /** The batch's events ride on its first item's operation in the outbox. */
  first_operation_id: number
  initiated_at_us: number
  completed_at_us: number | null
  /** The batch worker's claim: no other instance works the batch before it runs out. */
  lease_owner: string | null
  lease_until_us: number | null
  /** When a processing batch is next due a look by the batch worker. */
  next_look_at_us: number | null
}

/** The items of a batch in its order, and whether each has been handed on to its operator. */
export interface PayoutBatchItemsTable {
  batch_id: number
  item_index: number
  operation_id: number
  dispatched: Generated<number>
}

/** A payment link (migration 0011): a URL where customers pay the merchant on a page Sika hosts. */
export interface PaymentLinksTable {
  token: string
  merchant_id: string
  mode: 'sandbox' | 'live'
  merchant_reference: string
  request_hash: string
  description: string
  country: string
  currency: string
  amount_minor: number | null
  min_minor: number | null
  max_minor: number | null
  /** JSON: the channel codes offered. */
  channels: string
  /** 1 or 0. */
  reusable: number
  expires_at_us: number
  callback_url: string | null
  succeeded_url: string | null
  /** JSON, as an operation's. */
  metadata: string | null
  created_at_us: number
  closed_at_us: number | null
  attempts: Generated<number>
  claim_number: number | null
  claimed_at_us: number | null
}

/** The platform's own staff, who sign in to the console: a member of no merchant. */
export type PlatformMembersTable = Omit<MembersTable, 'merchant_id'>

export type PlatformInvitationsTable = Omit<InvitationsTable, 'merchant_id'>

export type PlatformSessionsTable = Omit<DashboardSessionsTable, 'merchant_id'>

/** Who changed what of the platform's own (its members, and what the console changes), from the console or the CLI. */
export interface PlatformAuditLogTable {
  id: string
  actor_kind: 'member' | 'cli'
  actor_id: string | null
  actor_label: string
  action: string
  target: string
  /** JSON text, never a secret. */
  before_json: string | null
  after_json: string | null
  address: string | null
  at_us: number
}

/** One reconciliation run: a connection and a day, leased while it runs (migration 0016). */
export interface ReconciliationRunsTable {
  id: Generated<number>
  connection_id: string
  /** YYYY-MM-DD in RECONCILIATION_TIMEZONE. */
  day: string
  /** due, running, completed, failed */
  status: string
  reason: string | null
  lines: number
  matched: number
  matched_amount_minor: number
  due_at_us: number
  lease_owner: string | null
  lease_until_us: number | null
  attempts: number
  started_at_us: number | null
  completed_at_us: number | null
}

/** One break, its identity (connection, day, kind, reference) kept from run to run. */
export interface ReconciliationBreaksTable {
  id: string
  connection_id: string
  day: string
  kind: string
  reference: string
  operation_id: number | null
  token: string | null
  role: string | null
  operator_reference: string | null
  amount_minor: number
  currency: string
  detail: string
  /** JSON: the operator's lines as received. */
  lines: string
  /** open, auto_resolved, resolved, ignored */
  state: string
  /** JSON: the evidence of what closed it (a repair's status answer). */
  evidence: string | null
  reason: string | null
  /** JSON: a resolution waiting for a second finance member. */
  pending_approval: string | null
  found_at_us: number
  last_seen_at_us: number
  closed_at_us: number | null
}

/** What happened to a break, in order. */
export interface ReconciliationBreakHistoryTable {
  id: Generated<number>
  break_id: string
  at_us: number
  what: string
  actor: string
  detail: string | null
}

/** An operator's document (a statement, a balance answer, an imported export), byte for byte. */
export interface ReconciliationFilesTable {
  id: Generated<number>
  connection_id: string
  day: string
  /** statement, balance, import */
  source: string
  name: string
  content_type: string
  sha256: string
  /** The bytes, gzipped, in base64. */
  content: string
  /** JSON: an import's column mapping. */
  mapping: string | null
  created_at_us: number
}

/** The console overview's roll-up: live operations per channel, country and hour (0018-console-data.ts). */
export interface OperatorHoursTable {
  channel: string
  country: string
  /** The hour's first microsecond. */
  hour_us: number
  operations: number
  succeeded: number
  /** Those no longer pending. */
  ended: number
  /** JSON array: of those ended, how many took each bucket of `durationBucketsMs`. */
  ended_by_duration: string
}
