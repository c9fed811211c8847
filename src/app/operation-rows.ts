import type { Selectable } from 'kysely'
import type { Mode, OperationKind } from '../domain/kinds.ts'
import type { Currency } from '../domain/money.ts'
import type { Side } from '../domain/operation.ts'
import type { FailureReason, Status } from '../domain/status.ts'
import type { OperationsTable } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'

/** The URLs a merchant gave at initiation. */
export interface OperationUrls {
  callbackUrl: string | null
  pendingUrl?: string
  succeededUrl?: string
  failedUrl?: string
  canceledUrl?: string
  errorUrl?: string
}

/** A stored operation, as the app works with it. */
export interface Operation {
  id: number
  token: string
  merchantId: string
  mode: Mode
  kind: OperationKind
  position: number
  status: Status
  merchantReference: string
  requestHash: string
  currency: Currency
  sides: Side[]
  urls: OperationUrls
  redirectUrl: string | null
  failure: FailureReason | null
  initiatedAtUs: number
  completedAtUs: number | null
  updatedAtUs: number
}

export function toOperation(row: Selectable<OperationsTable>): Operation {
  return {
    id: row.id,
    token: row.token,
    merchantId: row.merchant_id,
    mode: row.mode as Mode,
    kind: row.kind as OperationKind,
    position: row.position,
    status: row.status as Status,
    merchantReference: row.merchant_reference,
    requestHash: row.request_hash,
    currency: row.currency as Currency,
    sides: JSON.parse(row.sides) as Side[],
    urls: JSON.parse(row.urls) as OperationUrls,
    redirectUrl: row.redirect_url,
    failure:
      row.failure_code === null
        ? null
        : { code: row.failure_code, message: row.failure_message ?? row.failure_code },
    initiatedAtUs: row.initiated_at_us,
    completedAtUs: row.completed_at_us,
    updatedAtUs: row.updated_at_us,
  }
}

/** The columns that mirror the sides, so lists can filter without reading JSON. */
export function sideColumns(sides: readonly Side[]) {
  const [first, second] = sides
  if (!first) throw new Error('an operation has at least one side')
  return {
    channel: first.channel,
    country: first.country,
    phone_number: first.customer.phoneNumber,
    to_channel: second?.channel ?? null,
    to_country: second?.country ?? null,
    to_phone_number: second?.customer.phoneNumber ?? null,
  }
}

export async function findOperationByToken(
  db: Executor,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<Operation | undefined> {
  // Another merchant's or the other mode's token is simply not found: no oracle for tokens.
  const row = await db
    .selectFrom('operations')
    .selectAll()
    .where('token', '=', token)
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .executeTakeFirst()
  return row && toOperation(row)
}

export async function findOperationByReference(
  db: Executor,
  merchantId: string,
  mode: Mode,
  kind: OperationKind,
  merchantReference: string,
): Promise<Operation | undefined> {
  const row = await db
    .selectFrom('operations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('kind', '=', kind)
    .where('merchant_reference', '=', merchantReference)
    .executeTakeFirst()
  return row && toOperation(row)
}

export async function findOperationById(db: Executor, id: number): Promise<Operation | undefined> {
  const row = await db.selectFrom('operations').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toOperation(row)
}
