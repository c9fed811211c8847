import type { FailureReason, FinalStatus } from './status.ts'

/**
 * The sandbox's outcomes (CONTRACT.md, Sandbox): the customer phone number's last three digits
 * choose what happens, so an integration can take every path on purpose. Data, so that the
 * sandbox adapter acts on it and the API document describes it from the same table.
 */
export type SandboxBehaviour =
  | { kind: 'at-once'; status: FinalStatus; reason?: FailureReason }
  | { kind: 'after-delay'; status: FinalStatus; reason?: FailureReason }
  | { kind: 'until-expiry' }
  | { kind: 'customer-decides' }

export const sandboxReasons = {
  insufficientFunds: { code: 'insufficient_funds', message: 'The customer wallet has insufficient funds.' },
  declined: { code: 'customer_declined', message: 'The customer declined the payment.' },
  unavailable: { code: 'operator_unavailable', message: 'The operator is unavailable.' },
} as const satisfies Record<string, FailureReason>

export const sandboxBehaviours: Readonly<Record<string, SandboxBehaviour>> = {
  '900': { kind: 'after-delay', status: 'succeeded' },
  '901': { kind: 'at-once', status: 'failed', reason: sandboxReasons.insufficientFunds },
  '902': { kind: 'after-delay', status: 'failed', reason: sandboxReasons.insufficientFunds },
  '903': { kind: 'after-delay', status: 'canceled', reason: sandboxReasons.declined },
  '904': { kind: 'at-once', status: 'error', reason: sandboxReasons.unavailable },
  '905': { kind: 'until-expiry' },
  '906': { kind: 'customer-decides' },
}

/** Any other ending succeeds at once. */
export const sandboxDefaultBehaviour: SandboxBehaviour = { kind: 'at-once', status: 'succeeded' }

export function sandboxBehaviourFor(phoneNumber: string): SandboxBehaviour {
  return sandboxBehaviours[phoneNumber.slice(-3)] ?? sandboxDefaultBehaviour
}

/** One line of the table, in words, for the API document. */
export function describeSandboxBehaviour(behaviour: SandboxBehaviour): string {
  switch (behaviour.kind) {
    case 'at-once':
      return `\`${behaviour.status}\` at once`
    case 'after-delay':
      return `\`pending\`, then \`${behaviour.status}\` after SANDBOX_DELAY_MS`
    case 'until-expiry':
      return '`pending` until it expires (OPERATION_TTL), then `canceled`'
    case 'customer-decides':
      return '`pending` with a redirectUrl: the customer pays or declines on the hosted checkout page'
  }
}
