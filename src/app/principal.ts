import type { Mode } from '../domain/kinds.ts'

/** Who is calling: resolved from the two headers on every API request. The mode comes from the key pair, never from the request. */
export interface Principal {
  merchantId: string
  merchantName: string
  mode: Mode
}
