import type { RequestLine } from './load.ts'

/** The sandbox's default phone ending succeeds at once; 901 fails, 904 ends in error (CONTRACT.md). */
export function collectBody(ending: string, callbackUrl: string): Record<string, unknown> {
  return {
    amount: 5000,
    channel: 'orange-money',
    country: 'CI',
    customer: { fullName: 'Awa Kone', phoneNumber: `+2250700000${ending}`, email: 'awa@example.com' },
    merchantReference: 'bench-{ref}',
    callbackUrl,
  }
}

export function disbursementBody(callbackUrl: string): Record<string, unknown> {
  return {
    amount: 100,
    channel: 'wave',
    country: 'SN',
    customer: { fullName: 'Moussa Diop', phoneNumber: '+221770000123' },
    merchantReference: 'bench-{ref}',
    callbackUrl,
  }
}

export const apiOnlyScenario = 'POST collect, API only'

/**
 * Every read scenario, and the writes, as request files for the load generators. Every write
 * names a callbackUrl (it is required): its events go to a receiver that answers 200.
 */
export function scenarioRequests(tokens: string[], collects: number, failed: number, callbackUrl: string) {
  const collectLine: RequestLine = {
    method: 'POST',
    path: '/api/v1/collect',
    body: collectBody('123', callbackUrl),
  }
  const perPage = 10
  const middle = (total: number) => Math.max(1, Math.floor(total / perPage / 2))
  const details: RequestLine[] = tokens.map((token) => ({ method: 'GET', path: `/api/v1/collect/${token}` }))
  const mix: RequestLine[] = []
  for (let i = 0; i < 1000; i++) mix.push(i % 5 === 4 ? collectLine : details[i % details.length]!)
  return {
    details,
    'list first page': [{ method: 'GET', path: '/api/v1/collect?page=1' }],
    'list deep page': [{ method: 'GET', path: `/api/v1/collect?page=${middle(collects)}` }],
    'filtered first page': [{ method: 'GET', path: '/api/v1/collect?status=failed&page=1' }],
    'filtered deep page': [{ method: 'GET', path: `/api/v1/collect?status=failed&page=${middle(failed)}` }],
    'POST collect': [collectLine],
    // The same, on an instance that delivers no callbacks (WORKERS=off, as an API instance beside
    // delivering ones): what the raw SQLite baseline does, the writes alone. Its callbacks are
    // delivered after it, before the next scenario.
    [apiOnlyScenario]: [collectLine],
    'POST collect, 1 client': [collectLine],
    // The same connections spread over ten merchants: ten lists and balances, as TPC-B's ten branches.
    'POST collect, 10 merchants': [collectLine],
    'POST disbursement': [
      { method: 'POST', path: '/api/v1/disbursement', body: disbursementBody(callbackUrl) },
    ],
    'mix 80/20': mix,
  } satisfies Record<string, RequestLine[]>
}

export type ScenarioName = keyof ReturnType<typeof scenarioRequests>
