import { type Currency, currencies, toMajorUnits } from '../../../domain/money.ts'
import { type KitPage, type KitLocale as Locale, timeZoneOf } from './page.ts'

const numberFormats = new Map<string, Intl.NumberFormat>()

function numberFormat(locale: Locale, scale: number): Intl.NumberFormat {
  const key = `${locale}:${scale}`
  let format = numberFormats.get(key)
  if (!format) {
    format = new Intl.NumberFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', {
      minimumFractionDigits: scale,
      maximumFractionDigits: scale,
    })
    numberFormats.set(key, format)
  }
  return format
}

/** The CFA francs as French readers write them; other currencies by their code. */
const frenchSymbols: Partial<Record<Currency, string>> = { XOF: 'FCFA', XAF: 'FCFA' }

/** `XOF 5,000` in English, `5 000 FCFA` in French. */
export function formatMoney(minor: number, currency: string, locale: Locale): string {
  const known = currency in currencies ? (currency as Currency) : undefined
  const scale = known ? currencies[known].scale : 0
  const amount = numberFormat(locale, scale).format(known ? toMajorUnits(minor, known) : minor)
  if (locale === 'fr') return `${amount}\u00a0${(known && frenchSymbols[known]) ?? currency}`
  return `${currency}\u00a0${amount}`
}

/** An instant in the member's time zone, to the second, with the zone named. */
export function formatInstant(atUs: number, locale: Locale, timeZone: string): string {
  return new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone,
  })
    .format(new Date(Math.floor(atUs / 1000)))
    .concat(timeZone === 'UTC' ? ' UTC' : '')
}

/** A date-time input's value (`YYYY-MM-DDTHH:mm`, in the member's time zone) as microseconds; UTC when the zone is UTC. */
export function instantFromInput(text: string | undefined): number | undefined {
  if (!text) return undefined
  const match = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?$/.exec(text.trim())
  if (!match) return undefined
  const ms = Date.parse(`${match[1]}T${match[2] ?? '00:00'}:00Z`)
  return Number.isFinite(ms) ? ms * 1000 : undefined
}

const regionNames = new Map<Locale, Intl.DisplayNames>()

/** A country's name in the page's language (`Sénégal`, `Senegal`); its code when none is known. */
export function countryName(code: string, locale: Locale): string {
  let names = regionNames.get(locale)
  if (!names) {
    names = new Intl.DisplayNames([locale === 'fr' ? 'fr-FR' : 'en-GB'], { type: 'region', fallback: 'code' })
    regionNames.set(locale, names)
  }
  return names.of(code) ?? code
}

/** An amount as the page's reader writes it. */
export function showMoney(page: KitPage, minor: number, currency: string): string {
  return formatMoney(minor, currency, page.locale)
}

/** An instant in the page reader's time zone. */
export function showInstant(page: KitPage, atUs: number): string {
  return formatInstant(atUs, page.locale, timeZoneOf(page))
}
