/** Payment links (CONTRACT.md, Payment links): what the API, the hosted page and the dashboard call. */
export {
  closePaymentLink,
  createPaymentLink,
  listPaymentLinks,
  type PaymentLinkInput,
  type PaymentLinkListFilter,
  paymentLinkDetails,
  paymentLinkPayments,
  type TalliedLink,
} from './links.ts'
export {
  awaitLinkPaymentChange,
  linkPaymentOutcome,
  loadPaymentPage,
  type PaymentPageView,
  type PaymentRefusal,
  type PaymentRequest,
  paymentWait,
  payThroughLink,
} from './pay.ts'
export { linkUrls, paymentLinkRecord } from './records.ts'
