// Generated from the OpenAPI document by `npm run client:generate`: do not edit.
/** Where each kind's record sits in `data`, where it is initiated and whether it can be canceled, as the document says. */
export const operationDataKeys = {
  'collect': { created: 'collect', details: 'collect', list: 'collects', initiatedAt: '/api/v1/collect', cancelable: false },
  'recharge': { created: 'recharge', details: 'recharge', list: 'recharges', initiatedAt: '/api/v1/recharge', cancelable: false },
  'disbursement': { created: 'disbursement', details: 'disbursement', list: 'disbursements', initiatedAt: '/api/v1/disbursement', cancelable: true },
  'withdraw': { created: 'withdraw', details: 'withdraw', list: 'disbursements', initiatedAt: '/api/v1/withdraw', cancelable: true },
  'transfer': { created: 'transfer', details: 'transfer', list: 'transfers', initiatedAt: '/api/v1/transfer', cancelable: false },
  'refund': { created: 'refund', details: 'refund', list: 'refunds', initiatedAt: '/api/v1/collect/{token}/refund', cancelable: false },
} as const
