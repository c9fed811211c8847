import type { Mode } from '../domain/kinds.ts'
import type { MerchantControls } from '../domain/merchant-controls.ts'

/** Who is calling: resolved from the two headers on every API request. The mode comes from the key pair, never from the request. */
export interface Principal {
  merchantId: string
  merchantName: string
  mode: Mode
  /**
   * The platform's controls of the merchant in this mode, as the credential cache read them with
   * the key (an API request reads nothing more for them); absent for a principal made elsewhere (the
   * dashboard, a payment link's page), whose controls are read from the store when needed.
   */
  controls?: MerchantControls
}
