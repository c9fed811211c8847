/**
 * Request bodies for the sandbox, where the customer's phone number ends in the three digits
 * that choose the outcome (CONTRACT.md, Sandbox).
 */

let sequence = 0

/** A phone number in Côte d'Ivoire, different on every call, ending in `ending`. */
export function sandboxPhone(ending: string): string {
  return `+2250700${String(sequence++ % 1000).padStart(3, '0')}${ending}`
}

/** A transfer of 10,000 XOF between two orange-money customers, each side's outcome chosen by its ending. */
export function transferBody(fromEnding: string, toEnding: string, callbackUrl: string) {
  const side = (ending: string) => ({
    amount: 10_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone(ending) },
  })
  return {
    from: side(fromEnding),
    to: side(toEnding),
    merchantReference: `transfer-${sequence++}`,
    callbackUrl,
  }
}
