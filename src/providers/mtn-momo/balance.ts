import type { OperatorBalance } from '../../domain/operator-lines.ts'
import type { OperatorReading } from '../provider.ts'
import type { MtnClient } from './client.ts'
import { balanceOfProduct, balancePath, type Product } from './wire.ts'

const products: readonly Product[] = ['collection', 'disbursement']

/** One product's balance, or why there is none, naming the call and never a credential. */
async function productBalance(client: MtnClient, product: Product): Promise<OperatorBalance | string> {
  const path = balancePath(product)
  try {
    const answer = await client.api(product, 'GET', path)
    if (answer.status !== 200) {
      const code = (answer.body as { code?: unknown } | undefined)?.code
      return `MTN MoMo answered HTTP ${answer.status}${typeof code === 'string' ? ` ${code}` : ''} to GET ${path}.`
    }
    return balanceOfProduct(product, answer.body)
  } catch (error) {
    const why = error instanceof Error && error.message.startsWith('MTN MoMo') ? ` (${error.message})` : ''
    return `MTN MoMo gave no answer to GET ${path}${why}.`
  }
}

/**
 * The account balance of each product, collection and disbursement, each through its own
 * credentials; both or neither.
 */
export async function readBalances(client: MtnClient): Promise<OperatorReading<OperatorBalance[]>> {
  const balances = await Promise.all(products.map((product) => productBalance(client, product)))
  const problem = balances.find((balance) => typeof balance === 'string')
  if (problem !== undefined) return { ok: false, reason: problem }
  return { ok: true, value: balances as OperatorBalance[] }
}
