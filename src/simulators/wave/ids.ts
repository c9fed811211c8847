import { randomInt } from 'node:crypto'

const lowerAlphanumeric = '0123456789abcdefghijklmnopqrstuvwxyz'
const upperAlphanumeric = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const eventAlphabet = `${upperAlphanumeric}abcdefghijklmnopqrstuvwxyz`

function randomString(alphabet: string, length: number): string {
  let text = ''
  for (let index = 0; index < length; index++) text += alphabet[randomInt(alphabet.length)]
  return text
}

/** `cos-18qq25rgr100a`: the docs' checkout session ids are `cos-` and 13 lowercase characters. */
export function checkoutSessionId(): string {
  return `cos-${randomString(lowerAlphanumeric, 13)}`
}

/** `pt-185b5e4b8100c`: payout ids are `pt-` and 13 lowercase characters ("up to 20 characters"). */
export function payoutId(): string {
  return `pt-${randomString(lowerAlphanumeric, 13)}`
}

/** `TRG7XHH6UNR2SOACI`: the transaction id a payer sees in the Wave app (a live webhook's value). */
export function transactionId(): string {
  return `T${randomString(upperAlphanumeric, 16)}`
}

/** `AE_ijzo7oGgrlM8`: webhook event ids as the docs' examples show them. */
export function eventId(): string {
  return `AE_${randomString(eventAlphabet, 12)}`
}

/** Wave's timestamps: ISO 8601, UTC, to the second (`2022-06-20T17:17:11Z`). */
export function waveTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}
