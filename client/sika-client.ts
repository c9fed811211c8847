import createClient from 'openapi-fetch'
import { operationDataKeys } from './generated/data-keys.ts'
import type { operations, paths } from './generated/schema.ts'
import { followItems, followPages, type Page } from './pages.ts'
import {
  type FetchOutcome,
  type QueryOf,
  type RequestBody,
  type SikaResult,
  type SuccessBody,
  toResult,
} from './results.ts'

export { type CallbackEvent, type CallbackVerification, verifyCallback } from './callbacks.ts'
export type { Page, Pagination } from './pages.ts'
export {
  type ApiFailure,
  type ClientFailure,
  type ErrorCodeOf,
  type SikaErrorCode,
  type SikaFailure,
  SikaRequestError,
  type SikaResult,
} from './results.ts'

/**
 * The typed Sika client: openapi-fetch over the generated types (client/generated/schema.ts),
 * with one method per endpoint named from the domain, results as values, and page iterators.
 */

export interface SikaClientOptions {
  /** The server's origin, e.g. http://localhost:3000 (a trailing /api/v1 is accepted too). */
  baseUrl: string
  /** pk_test_... or pk_live_... */
  apiKey: string
  /** sk_test_... or sk_live_... */
  secretKey: string
  /** Another fetch, e.g. one with a timeout or a proxy. */
  fetch?: (request: Request) => Promise<Response>
}

// ---- the five operation kinds: one table, as src/domain/kinds.ts is for the server ----

/** The kinds, as the generated data keys name them (a payout batch or a payment link is no operation). */
export type OperationKind = keyof typeof operationDataKeys

type KindPath<Kind extends OperationKind> = `/api/v1/${Kind}`
/** A kind initiated on an operation it acts on (a refund: POST /api/v1/collect/{token}/refund). */
type InitiatedOnPath<Kind extends string> = {
  [Path in keyof paths]: Path extends `/api/v1/${string}/{token}/${Kind}` ? Path : never
}[keyof paths]
/** The kinds initiated at their own path, POST /api/v1/<kind>. */
export type DirectKind = {
  [Kind in OperationKind]: InitiatedOnPath<Kind> extends never ? Kind : never
}[OperationKind]
type InitiationPath<Kind extends OperationKind> = Kind extends DirectKind
  ? KindPath<Kind>
  : InitiatedOnPath<Kind>
export type InitiateOperation<Kind extends OperationKind> = paths[InitiationPath<Kind>]['post']
export type ListOperation<Kind extends OperationKind> = paths[KindPath<Kind>]['get']
export type GetOperation<Kind extends OperationKind> = paths[`${KindPath<Kind>}/{token}`]['get']

type DataOf<Operation> = SuccessBody<Operation> extends { data: infer Data } ? Data : never
type PaginationOf<Operation> =
  SuccessBody<Operation> extends { meta: { pagination: infer Paging } } ? Paging : never

interface DataKeys<Kind extends OperationKind> {
  created: keyof DataOf<InitiateOperation<Kind>>
  details: keyof DataOf<GetOperation<Kind>>
  list: keyof DataOf<ListOperation<Kind>>
}

/** Where each kind's record sits in `data`, generated from the document (quirks included: withdraw lists under `disbursements`). */
const operationKinds = operationDataKeys satisfies { [Kind in OperationKind]: DataKeys<Kind> }

type Keys<Kind extends OperationKind> = (typeof operationKinds)[Kind]

/** The record of one kind, as its details endpoint answers it. */
export type OperationRecord<Kind extends OperationKind> = DataOf<GetOperation<Kind>>[Keys<Kind>['details'] &
  keyof DataOf<GetOperation<Kind>>]
export type InitiationBody<Kind extends OperationKind> = RequestBody<InitiateOperation<Kind>>
export type ListQuery<Kind extends OperationKind> = QueryOf<ListOperation<Kind>>

type ListItem<Operation, Key extends PropertyKey> =
  DataOf<Operation> extends { [K in Key]: (infer Item)[] } ? Item : never
type ListPage<Operation, Key extends PropertyKey> = Page<ListItem<Operation, Key>, PaginationOf<Operation>>
type PageIterator<Operation, Key extends PropertyKey> = AsyncGenerator<
  ListPage<Operation, Key>,
  void,
  undefined
>

/** list, pages and listAll over one list endpoint. */
export interface Listing<Operation, Key extends PropertyKey, Query = QueryOf<Operation>> {
  /** One page: its items and meta.pagination. */
  list(query?: Query): Promise<SikaResult<ListPage<Operation, Key>, Operation>>
  /** Every page from query.page (default 1) on; throws SikaRequestError if a page fails. */
  pages(query?: Query): PageIterator<Operation, Key>
  /** Every item of every page, newest first; throws SikaRequestError if a page fails. */
  listAll(query?: Query): AsyncGenerator<ListItem<Operation, Key>, void, undefined>
}

type Initiated<Kind extends OperationKind> = Promise<
  SikaResult<OperationRecord<Kind>, InitiateOperation<Kind>>
>

interface OperationResourceBase<Kind extends OperationKind>
  extends Listing<ListOperation<Kind>, Keys<Kind>['list']> {
  /** POST /api/v1/<kind>; a refund is initiated on the collect it refunds: `refund.initiate(collectToken, body)`. */
  initiate: Kind extends DirectKind
    ? (body: InitiationBody<Kind>) => Initiated<Kind>
    : (token: string, body: InitiationBody<Kind>) => Initiated<Kind>
  get(token: string): Promise<SikaResult<OperationRecord<Kind>, GetOperation<Kind>>>
}

/** The kinds a merchant may cancel before they reach an operator: every path `/api/v1/<kind>/{token}/cancel`. */
export type CancelableKind = {
  [Kind in OperationKind]: `/api/v1/${Kind}/{token}/cancel` extends keyof paths ? Kind : never
}[OperationKind]
type CancelOperation<Kind extends CancelableKind> = paths[`/api/v1/${Kind}/{token}/cancel`]['post']

export type OperationResource<Kind extends OperationKind> = OperationResourceBase<Kind> &
  (Kind extends CancelableKind
    ? {
        /** POST /api/v1/<kind>/{token}/cancel: canceled before it reaches an operator, or a 409 not_cancelable. */
        cancel(
          token: string,
          body?: RequestBody<CancelOperation<Kind>>,
        ): Promise<SikaResult<OperationRecord<Kind>, CancelOperation<Kind>>>
      }
    : unknown)

type PayoutBatchRecord = DataOf<operations['getPayoutBatch']>['payoutBatch']
type PaymentLinkRecord = DataOf<operations['getPaymentLink']>['paymentLink']

type TransactionsOperation = operations['listTransactions']
type EventListOperation = operations['listEvents']
type EventRecord = DataOf<operations['getEvent']>['event']

type BalanceOperation = operations['getBalance']
type TransactionQuery = Omit<NonNullable<QueryOf<TransactionsOperation>>, 'format' | 'page' | 'perPage'>

export type SikaClient = { readonly [Kind in OperationKind]: OperationResource<Kind> } & {
  readonly transactions: Listing<TransactionsOperation, 'transactions'> & {
    /**
     * The CSV statement of every row the filters select (RFC 4180, a header row), as text. For
     * statements too large to hold in memory, GET /api/v1/transaction?format=csv streams it.
     */
    statement(query?: TransactionQuery): Promise<SikaResult<string, TransactionsOperation>>
  }
  readonly balance: {
    /** Balance, held and available per currency of the key's mode. */
    get(): Promise<SikaResult<DataOf<BalanceOperation>['balances'], BalanceOperation>>
  }
  readonly channels: {
    list(): Promise<SikaResult<DataOf<operations['listChannels']>['channels'], operations['listChannels']>>
  }
  readonly events: Listing<EventListOperation, 'events'> & {
    /** The event with its delivery attempts. */
    get(id: string): Promise<SikaResult<EventRecord, operations['getEvent']>>
    /** Queues the event for delivery at once. */
    redeliver(
      id: string,
    ): Promise<SikaResult<DataOf<operations['redeliverEvent']>['event'], operations['redeliverEvent']>>
  }
  readonly payoutBatches: Listing<operations['listPayoutBatches'], 'payoutBatches'> & {
    /** POST /api/v1/payout-batch: up to 1,000 disbursements accepted (or refused) as one. */
    create(
      body: RequestBody<operations['createPayoutBatch']>,
    ): Promise<SikaResult<PayoutBatchRecord, operations['createPayoutBatch']>>
    get(token: string): Promise<SikaResult<PayoutBatchRecord, operations['getPayoutBatch']>>
    /** Cancels every item not yet at an operator; the batch completes when the rest have ended. */
    cancel(
      token: string,
      body?: RequestBody<operations['cancelPayoutBatch']>,
    ): Promise<SikaResult<PayoutBatchRecord, operations['cancelPayoutBatch']>>
  }
  readonly paymentLinks: Listing<operations['listPaymentLinks'], 'paymentLinks'> & {
    /** POST /api/v1/payment-link: a page Sika hosts where customers pay, with its QR code. */
    create(
      body: RequestBody<operations['createPaymentLink']>,
    ): Promise<SikaResult<PaymentLinkRecord, operations['createPaymentLink']>>
    get(token: string): Promise<SikaResult<PaymentLinkRecord, operations['getPaymentLink']>>
    /** Takes no more payments; what is under way goes on. */
    close(token: string): Promise<SikaResult<PaymentLinkRecord, operations['closePaymentLink']>>
  }
  readonly health: {
    /** 200 while the process runs. */
    live(): Promise<SikaResult<SuccessBody<operations['health']>, operations['health']>>
    /** 200 only while the database answers. */
    ready(): Promise<SikaResult<SuccessBody<operations['ready']>, operations['ready']>>
  }
}

/**
 * openapi-fetch's methods, seen without their path-by-path typing: the five kinds share one
 * implementation, so their paths are computed, and the public types above say what each returns.
 */
interface UntypedFetch {
  GET(path: string, init?: { params?: { query?: object; path?: object } }): Promise<FetchOutcome>
  POST(path: string, init?: { params?: { path?: object }; body?: unknown }): Promise<FetchOutcome>
}

export function createSikaClient(options: SikaClientOptions): SikaClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, ''),
    headers: { 'api-key': options.apiKey, 'secret-key': options.secretKey },
    // A redirect would carry the secret-key header to wherever it points: none is followed.
    redirect: 'manual',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const untyped = api as unknown as UntypedFetch

  const listing = <Operation, Key extends string>(path: string, key: Key): Listing<Operation, Key> => {
    const list = (query: QueryOf<Operation> | undefined = undefined) =>
      toResult<Operation, ListPage<Operation, Key>>(
        untyped.GET(path, { params: { query: query ?? {} } }),
        (body) => {
          const { data, meta } = body as { data: Record<Key, unknown[]>; meta: { pagination: unknown } }
          return { items: data[key], pagination: meta.pagination } as ListPage<Operation, Key>
        },
      )
    // The iterators see a page as items and meta.pagination; the public types say which items.
    type AnyPage = (page: number) => Promise<SikaResult<Page<ListItem<Operation, Key>>, Operation>>
    const pageOf = (query: QueryOf<Operation> | undefined) =>
      ((page: number) => list({ ...query, page } as unknown as QueryOf<Operation>)) as unknown as AnyPage
    const firstPage = (query: QueryOf<Operation> | undefined) =>
      (query as { page?: number } | undefined)?.page ?? 1
    return {
      list,
      pages: (query) => followPages(pageOf(query), firstPage(query)) as PageIterator<Operation, Key>,
      listAll: (query) => followItems(pageOf(query), firstPage(query)),
    }
  }

  const operationResource = <Kind extends OperationKind>(kind: Kind): OperationResource<Kind> => {
    const keys = operationKinds[kind]
    const path = `/api/v1/${kind}`
    const record = (key: PropertyKey) => (body: unknown) =>
      (body as { data: Record<PropertyKey, OperationRecord<Kind>> }).data[key] as OperationRecord<Kind>
    const initiatedAt: string = keys.initiatedAt
    // A kind initiated on another operation takes that operation's token before its body.
    const initiate = (...args: unknown[]) => {
      const [token, body] = initiatedAt.includes('{token}') ? args : [undefined, args[0]]
      const params = token === undefined ? {} : { params: { path: { token } } }
      return toResult(untyped.POST(initiatedAt, { ...params, body }), record(keys.created))
    }
    const cancelPath = `${path}/{token}/cancel`
    const cancel = (token: string, body: unknown = {}) =>
      toResult(untyped.POST(cancelPath, { params: { path: { token } }, body }), record(keys.details))
    const resource: OperationResourceBase<Kind> = {
      ...listing<ListOperation<Kind>, Keys<Kind>['list']>(path, keys.list),
      initiate: initiate as OperationResource<Kind>['initiate'],
      get: (token) =>
        toResult(untyped.GET(`${path}/{token}`, { params: { path: { token } } }), record(keys.details)),
    }
    return (keys.cancelable ? { ...resource, cancel } : resource) as OperationResource<Kind>
  }

  const kinds = Object.fromEntries(
    (Object.keys(operationKinds) as OperationKind[]).map((kind) => [kind, operationResource(kind)]),
  ) as { [Kind in OperationKind]: OperationResource<Kind> }

  return {
    ...kinds,
    transactions: {
      ...listing<TransactionsOperation, 'transactions'>('/api/v1/transaction', 'transactions'),
      statement: (query) =>
        toResult(
          api.GET('/api/v1/transaction', {
            params: { query: { ...query, format: 'csv' } },
            parseAs: 'text',
          }) as Promise<FetchOutcome>,
          (body) => body as unknown as string,
        ),
    },
    balance: {
      get: () => toResult(api.GET('/api/v1/balance'), (body) => body.data.balances),
    },
    channels: {
      list: () => toResult(api.GET('/api/v1/channels'), (body) => body.data.channels),
    },
    events: {
      ...listing<EventListOperation, 'events'>('/api/v1/events', 'events'),
      get: (id) =>
        toResult(api.GET('/api/v1/events/{id}', { params: { path: { id } } }), (body) => body.data.event),
      redeliver: (id) =>
        toResult(
          api.POST('/api/v1/events/{id}/redeliver', { params: { path: { id } } }),
          (body) => body.data.event,
        ),
    },
    payoutBatches: {
      ...listing<operations['listPayoutBatches'], 'payoutBatches'>('/api/v1/payout-batch', 'payoutBatches'),
      create: (body) =>
        toResult(api.POST('/api/v1/payout-batch', { body }), (answer) => answer.data.payoutBatch),
      get: (token) =>
        toResult(
          api.GET('/api/v1/payout-batch/{token}', { params: { path: { token } } }),
          (answer) => answer.data.payoutBatch,
        ),
      cancel: (token, body = {}) =>
        toResult(
          api.POST('/api/v1/payout-batch/{token}/cancel', { params: { path: { token } }, body }),
          (answer) => answer.data.payoutBatch,
        ),
    },
    paymentLinks: {
      ...listing<operations['listPaymentLinks'], 'paymentLinks'>('/api/v1/payment-link', 'paymentLinks'),
      create: (body) =>
        toResult(api.POST('/api/v1/payment-link', { body }), (answer) => answer.data.paymentLink),
      get: (token) =>
        toResult(
          api.GET('/api/v1/payment-link/{token}', { params: { path: { token } } }),
          (answer) => answer.data.paymentLink,
        ),
      close: (token) =>
        toResult(
          api.POST('/api/v1/payment-link/{token}/close', { params: { path: { token } }, body: {} }),
          (answer) => answer.data.paymentLink,
        ),
    },
    health: {
      live: () => toResult(api.GET('/health'), (body) => body),
      ready: () => toResult(api.GET('/ready'), (body) => body),
    },
  }
}
