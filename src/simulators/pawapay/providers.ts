/**
 * The providers (mobile money operators) of pawaPay's v2 API, their country, currencies and
 * decimal support, from pawaPay's provider list (SOURCES.md, "Providers"). Each is also tied to
 * the Sika channel it serves, for connection().
 */

export interface Country {
  readonly iso3: string
  readonly iso2: string
  /** The calling code, without `+` (active configuration's `prefix`). */
  readonly prefix: string
  /** How many digits follow the calling code in a valid phone number. */
  readonly nationalLengths: readonly number[]
  readonly names: { readonly en: string; readonly fr: string }
}

/** Decimal places allowed in amounts, per operation: 0 is `NONE`, 2 is `TWO_PLACES`. */
export interface Decimals {
  readonly deposit: 0 | 2
  readonly payout: 0 | 2
}

export interface Provider {
  readonly code: string
  readonly country: string
  readonly displayName: string
  readonly channel: string
  readonly currencies: Readonly<Record<string, Decimals>>
  readonly authType: 'PROVIDER_AUTH' | 'PREAUTH' | 'REDIRECT_AUTH'
}

const country = (
  iso3: string,
  iso2: string,
  prefix: string,
  nationalLengths: number[],
  en: string,
  fr = en,
): Country => ({ iso3, iso2, prefix, nationalLengths, names: { en, fr } })

export const countries: readonly Country[] = [
  country('BEN', 'BJ', '229', [8, 10], 'Benin', 'Bénin'),
  country('BFA', 'BF', '226', [8], 'Burkina Faso'),
  country('CMR', 'CM', '237', [9], 'Cameroon', 'Cameroun'),
  country('CIV', 'CI', '225', [10], "Côte d'Ivoire"),
  country('COD', 'CD', '243', [9], 'DR Congo', 'RD Congo'),
  country('COG', 'CG', '242', [9], 'Republic of the Congo', 'République du Congo'),
  country('ETH', 'ET', '251', [9], 'Ethiopia', 'Éthiopie'),
  country('GAB', 'GA', '241', [8, 9], 'Gabon'),
  country('GHA', 'GH', '233', [9], 'Ghana'),
  country('KEN', 'KE', '254', [9], 'Kenya'),
  country('LSO', 'LS', '266', [8], 'Lesotho'),
  country('MWI', 'MW', '265', [9], 'Malawi'),
  country('MOZ', 'MZ', '258', [9], 'Mozambique'),
  country('NGA', 'NG', '234', [10], 'Nigeria'),
  country('RWA', 'RW', '250', [9], 'Rwanda'),
  country('SEN', 'SN', '221', [9], 'Senegal', 'Sénégal'),
  country('SLE', 'SL', '232', [8], 'Sierra Leone'),
  country('TZA', 'TZ', '255', [9], 'Tanzania', 'Tanzanie'),
  country('UGA', 'UG', '256', [9], 'Uganda', 'Ouganda'),
  country('ZMB', 'ZM', '260', [9], 'Zambia', 'Zambie'),
]

const none: Decimals = { deposit: 0, payout: 0 }
const two: Decimals = { deposit: 2, payout: 2 }

function provider(
  code: string,
  displayName: string,
  channel: string,
  currencies: Record<string, Decimals>,
  authType: Provider['authType'] = 'PROVIDER_AUTH',
): Provider {
  return { code, country: code.slice(-3), displayName, channel, currencies, authType }
}

export const providers: readonly Provider[] = [
  provider('MTN_MOMO_BEN', 'MTN', 'mtn-momo', { XOF: none }),
  provider('MOOV_BEN', 'Moov', 'moov-money', { XOF: none }),
  provider('MOOV_BFA', 'Moov', 'moov-money', { XOF: none }),
  provider('ORANGE_BFA', 'Orange', 'orange-money', { XOF: none }, 'PREAUTH'),
  provider('MTN_MOMO_CMR', 'MTN', 'mtn-momo', { XAF: none }),
  provider('ORANGE_CMR', 'Orange', 'orange-money', { XAF: none }),
  provider('MTN_MOMO_CIV', 'MTN', 'mtn-momo', { XOF: none }),
  provider('ORANGE_CIV', 'Orange', 'orange-money', { XOF: none }),
  provider('WAVE_CIV', 'Wave', 'wave', { XOF: none }, 'REDIRECT_AUTH'),
  provider('VODACOM_MPESA_COD', 'Vodacom', 'mpesa', { CDF: none, USD: two }),
  provider('AIRTEL_COD', 'Airtel', 'airtel-money', { CDF: two, USD: two }),
  provider('ORANGE_COD', 'Orange', 'orange-money', { CDF: two, USD: two }),
  provider('MPESA_ETH', 'M-Pesa', 'mpesa', { ETB: two }),
  provider('AIRTEL_GAB', 'Airtel', 'airtel-money', { XAF: two }),
  provider('MTN_MOMO_GHA', 'MTN', 'mtn-momo', { GHS: two }),
  provider('AIRTELTIGO_GHA', 'AT', 'at-money', { GHS: two }),
  provider('VODAFONE_GHA', 'Vodafone', 'vodafone-cash', { GHS: two }),
  provider('MPESA_KEN', 'M-Pesa', 'mpesa', { KES: { deposit: 0, payout: 2 } }),
  provider('MPESA_LSO', 'M-Pesa', 'mpesa', { LSL: two }),
  provider('AIRTEL_MWI', 'Airtel', 'airtel-money', { MWK: two }),
  provider('TNM_MWI', 'TNM', 'tnm-mpamba', { MWK: two }),
  provider('MOVITEL_MOZ', 'Movitel', 'emola', { MZN: { deposit: 0, payout: 2 } }),
  provider('VODACOM_MOZ', 'Vodacom', 'mpesa', { MZN: two }),
  provider('AIRTEL_NGA', 'Airtel', 'airtel-money', { NGN: none }),
  provider('MTN_MOMO_NGA', 'MTN', 'mtn-momo', { NGN: two }),
  provider('AIRTEL_COG', 'Airtel', 'airtel-money', { XAF: none }),
  provider('MTN_MOMO_COG', 'MTN', 'mtn-momo', { XAF: none }),
  provider('AIRTEL_RWA', 'Airtel', 'airtel-money', { RWF: none }),
  provider('MTN_MOMO_RWA', 'MTN', 'mtn-momo', { RWF: none }),
  provider('FREE_SEN', 'Free', 'free-money', { XOF: none }),
  provider('ORANGE_SEN', 'Orange', 'orange-money', { XOF: none }),
  provider('WAVE_SEN', 'Wave', 'wave', { XOF: none }, 'REDIRECT_AUTH'),
  provider('ORANGE_SLE', 'Orange', 'orange-money', { SLE: two }),
  provider('AIRTEL_TZA', 'Airtel', 'airtel-money', { TZS: two }),
  provider('VODACOM_TZA', 'Vodacom', 'mpesa', { TZS: none }),
  provider('TIGO_TZA', 'Tigo', 'tigo-pesa', { TZS: none }),
  provider('HALOTEL_TZA', 'Halotel', 'halopesa', { TZS: none }),
  provider('AIRTEL_OAPI_UGA', 'Airtel', 'airtel-money', { UGX: none }),
  provider('MTN_MOMO_UGA', 'MTN', 'mtn-momo', { UGX: two }),
  provider('AIRTEL_OAPI_ZMB', 'Airtel', 'airtel-money', { ZMW: two }),
  provider('MTN_MOMO_ZMB', 'MTN', 'mtn-momo', { ZMW: two }),
  provider('ZAMTEL_ZMB', 'Zamtel', 'zamtel-kwacha', { ZMW: two }),
]

export function providerByCode(code: string): Provider | undefined {
  return providers.find((candidate) => candidate.code === code)
}

export function countryByIso3(iso3: string): Country | undefined {
  return countries.find((candidate) => candidate.iso3 === iso3)
}

export function countryByIso2(iso2: string): Country | undefined {
  return countries.find((candidate) => candidate.iso2 === iso2.toUpperCase())
}

/** The country whose calling code starts these digits (calling codes here are all 3 digits). */
export function countryOfNumber(digits: string): Country | undefined {
  return countries.find((candidate) => digits.startsWith(candidate.prefix))
}

/** The provider that serves a Sika channel in a country, if pawaPay has one. */
export function providerFor(channel: string, iso3: string): Provider | undefined {
  return providers.find((candidate) => candidate.channel === channel && candidate.country === iso3)
}
