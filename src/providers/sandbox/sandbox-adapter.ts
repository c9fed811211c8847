import type { ProviderAdapter, ProviderOutcome, ProviderRequest } from '../provider.ts'

/**
 * The built-in sandbox operator (CONTRACT.md, Sandbox): the customer phone number's last
 * three digits choose the outcome, so an integration can exercise every path on purpose.
 */
export const sandboxOutcomes: Record<string, ProviderOutcome> = {
  '900': { status: 'pending' },
  '901': {
    status: 'failed',
    reason: { code: 'insufficient_funds', message: 'The customer wallet has insufficient funds.' },
  },
  '902': { status: 'pending' },
  '903': { status: 'pending' },
  '904': {
    status: 'error',
    reason: { code: 'operator_unavailable', message: 'The operator is unavailable.' },
  },
  '905': { status: 'pending' },
  '906': { status: 'pending', needsCustomerAction: true },
}

export function sandboxOutcomeFor(phoneNumber: string): ProviderOutcome {
  return sandboxOutcomes[phoneNumber.slice(-3)] ?? { status: 'succeeded' }
}

export const sandboxAdapter: ProviderAdapter = {
  name: 'sandbox',
  async initiate(request: ProviderRequest) {
    const outcome = sandboxOutcomeFor(request.phoneNumber)
    return { ...outcome, providerReference: `sbx_${request.token}_${request.role}` }
  },
}
