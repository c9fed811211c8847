/** The page kit's formats, where the dashboard's pages have always found them. */
export { countryName, formatInstant, formatMoney, instantFromInput } from '../pages/kit/format.ts'
