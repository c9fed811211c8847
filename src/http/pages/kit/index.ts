/**
 * The page kit: the few components every page of the dashboard and the platform console is made
 * of, each a function of data returning escaped markup (GOV.UK Design System's summary list,
 * table, pagination, notification banner; a confirmation step), and the formats of money and
 * time. No page builds these by hand.
 */
export { ConfirmForm, CsrfInput } from './confirm-form.tsx'
export {
  countryName,
  formatInstant,
  formatMoney,
  instantFromInput,
  showInstant,
  showMoney,
} from './format.ts'
export { Notification } from './notification.tsx'
export { type KitLocale, type KitPage, kitWords } from './page.ts'
export { numberedPages, Pagination, pageNumberOf } from './pagination.tsx'
export { Section } from './section.tsx'
export { SummaryList, type SummaryRow } from './summary-list.tsx'
export { type Column, Table } from './table.tsx'
