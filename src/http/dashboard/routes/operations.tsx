import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type OperationQuery,
  openOperationsExport,
  parseCursor,
  searchOperations,
} from '../../../app/dashboard/search.ts'
import { operationKindNames } from '../../../domain/kinds.ts'
import { isCountry } from '../../../domain/money.ts'
import { statuses } from '../../../domain/status.ts'
import { instantFromInput } from '../../pages/kit/index.ts'
import { sendCsvExport } from '../csv-export.tsx'
import type { Guard } from '../guard.tsx'
import { sendPage } from '../respond.ts'
import { modes } from './home.tsx'
import { operationRoutes } from './operation.tsx'
import { csvColumns, csvRow } from './operations-csv.ts'
import { type ListParameters, listPage } from './operations-page.tsx'

const dayUs = 86_400_000_000

/** The operations area: the list with its search and filters, its CSV, and each operation's page. */
export function operationsRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    app.get(`/dashboard/${mode}/operations`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const parameters = request.query as ListParameters
      const query = operationQuery(parameters)
      const found = await searchOperations(context, signedIn.live.member.merchantId, mode, query)
      return sendPage(reply, 200, listPage(signedIn.page, mode, parameters, found))
    })
    app.get(`/dashboard/${mode}/operations.csv`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const query = operationQuery(request.query as ListParameters)
      const merchantId = signedIn.live.member.merchantId
      return sendCsvExport(
        reply,
        signedIn.page,
        () => openOperationsExport(context, merchantId, mode, query),
        {
          filename: `sika-${mode}-operations.csv`,
          header: csvColumns,
          cells: csvRow,
        },
      )
    })
  }
  operationRoutes(app, context, guard)
}

/** What the query string asks, each value checked: an unknown kind, status or country filters nothing. */
export function operationQuery(parameters: ListParameters): OperationQuery {
  const text = (value: string | undefined) => value?.trim().slice(0, 200) || undefined
  const query: OperationQuery = {}
  const q = text(parameters.q)
  if (q) query.q = q
  const kind = text(parameters.kind)
  if (kind && (operationKindNames as string[]).includes(kind)) query.kind = kind
  const status = text(parameters.status)
  if (status && (statuses as readonly string[]).includes(status)) query.status = status
  const channel = text(parameters.channel)
  if (channel) query.channel = channel
  const country = text(parameters.country)?.toUpperCase()
  if (country && isCountry(country)) query.country = country
  const fromUs = instantFromInput(parameters.from)
  if (fromUs !== undefined) query.fromUs = fromUs
  // The `to` date is the last day shown: operations before the next midnight.
  const toUs = instantFromInput(parameters.to)
  if (toUs !== undefined) query.toUs = parameters.to?.includes('T') ? toUs : toUs + dayUs
  const after = parseCursor(parameters.after)
  if (after) query.after = after
  return query
}
