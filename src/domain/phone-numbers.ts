import {
  type CountryCode,
  getCountryCallingCode,
  getExampleNumber,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from 'libphonenumber-js'
import mobileExamples from 'libphonenumber-js/mobile/examples'

/**
 * Customer phone numbers (CONTRACT.md, Errors): read for the side's country and kept in E.164
 * (`+2250700000001`). Only the number's shape and its country calling code are checked, never
 * its full validity: sandbox and simulator test numbers must keep working, and their last three
 * digits (which choose an outcome) are never changed, as E.164 only rewrites the front.
 */
export type PhoneNumberReading = { e164: string } | { refusal: string }

/**
 * The number in E.164 for a side in `country` (ISO 3166-1 alpha-2), or why it cannot be one.
 * - With a leading `+` it is international: its calling code must be the country's.
 * - Digits alone are national form (`0700000901` in CI), or international without the `+`
 *   (`2250700000001`): libphonenumber takes a leading calling code off when what follows is a
 *   possible national number.
 * - Digits that are no possible number of the country but are one of another country's calling
 *   code (`221770000002` on a CI side) are refused.
 */
export function readPhoneNumber(raw: string, country: string): PhoneNumberReading {
  const digits = raw.replace(/\D/g, '')
  if (!isSupportedCountry(country)) return { e164: internationalForm(digits) }
  const callingCode = getCountryCallingCode(country)
  if (/^\s*\+/.test(raw)) {
    if (!digits.startsWith(callingCode)) return { refusal: wrongCountryMessage(digits, country) }
    return { e164: internationalForm(digits) }
  }
  const national = parsePhoneNumberFromString(digits, country)
  if (national?.isPossible()) return { e164: national.number }
  const foreign = parsePhoneNumberFromString(`+${digits}`)
  if (foreign?.isPossible() && foreign.countryCallingCode !== callingCode)
    return { refusal: wrongCountryMessage(digits, country) }
  // Nothing fits (too short or too long for the country, and no other country's number): lenient
  // on purpose, as test numbers and numbering plans newer than the library's metadata must pass.
  // Digits that start with the country's calling code are read as international without the
  // `+`; any others as national, behind the country's calling code.
  return { e164: digits.startsWith(callingCode) ? `+${digits}` : `+${callingCode}${digits}` }
}

/**
 * The `phoneNumber` list filter as stored (E.164), whatever form it was sent in: read for
 * `country` when the list is filtered on one, international otherwise (a leading `+`, or digits
 * that start with a calling code). A leading space is a `+` that form decoding turned into one
 * (`?phoneNumber=+225...` sent unencoded). A number another country's calling code starts
 * is read as international even with a country: a transfer's other side may be in its country.
 */
export function phoneNumberFilter(raw: string, country?: string): string {
  const sent = raw.replace(/^ /, '+')
  if (country !== undefined) {
    const reading = readPhoneNumber(sent, country)
    if ('e164' in reading) return reading.e164
  }
  return internationalForm(sent.replace(/\D/g, ''))
}

/** `+` and the digits, as libphonenumber writes the number when it can read it. */
function internationalForm(digits: string): string {
  return parsePhoneNumberFromString(`+${digits}`)?.number ?? `+${digits}`
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' })

function countryName(country: string): string {
  return regionNames.of(country) ?? country
}

/** Names the calling code the number has, the one the country takes, and how to fix it. */
function wrongCountryMessage(digits: string, country: CountryCode): string {
  const callingCode = getCountryCallingCode(country)
  const name = countryName(country)
  const fix = `Send the customer's ${name} number in national form or starting with +${callingCode}`
  const foreign = parsePhoneNumberFromString(`+${digits}`)
  if (!foreign) return `+${digits} does not start with ${name}'s calling code (+${callingCode}). ${fix}.`
  const owner = foreign.country
  const where = owner ? ` (${countryName(owner)})` : ''
  const otherwise = owner ? `, or set country to ${owner} for a number in ${countryName(owner)}` : ''
  return `+${foreign.countryCallingCode}${where} is not ${name}'s calling code (+${callingCode}). ${fix}${otherwise}.`
}

const examples = new Map<string, string | undefined>()

/** A mobile number of the country in its national form (`70 123 45 67` in SN), to show what to type. */
export function exampleMobileNumber(country: string): string | undefined {
  if (!examples.has(country))
    examples.set(
      country,
      isSupportedCountry(country) ? getExampleNumber(country, mobileExamples)?.formatNational() : undefined,
    )
  return examples.get(country)
}
