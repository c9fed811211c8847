/**
 * The outcome a simulator gives a payment is chosen by the last three digits of the customer's
 * phone number, the same table for every operator, so a test or a person can take each path on
 * purpose. Payments an operator decides on a hosted page (Wave checkout, Orange Money web
 * payment) wait for a person instead, unless a test number says otherwise.
 */
export const simulatorOutcomes = {
  '101': 'declined: insufficient funds (or the operator\u2019s own decline reason)',
  '102': 'refused by the customer',
  '103': 'expires: the customer never answers, the operator ends it as expired',
  '104': 'pending forever: no final status, no callback',
  '105': 'succeeds, but no callback is ever sent: only a status check finds it',
  '106': 'the operator accepts the request but answers 500 to it; a status check finds it succeeded',
  '107':
    'the operator accepts the request but answers only after 15 s (past any client timeout); it succeeds',
  '108': 'unknown account: the payer or payee does not exist',
} as const

export type SimulatorOutcome = 'succeeds' | keyof typeof simulatorOutcomes

/** Any other ending succeeds after the settle delay, with a callback. */
export function outcomeForPhoneNumber(phoneNumber: string): SimulatorOutcome {
  const ending = phoneNumber.replace(/\D/g, '').slice(-3)
  return Object.hasOwn(simulatorOutcomes, ending) ? (ending as keyof typeof simulatorOutcomes) : 'succeeds'
}
