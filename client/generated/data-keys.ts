// Generated from the OpenAPI document by `npm run client:generate`: do not edit.
/** Where each kind's record sits in `data`, and where it is initiated, as the document says. */
export const operationDataKeys = {
  'collect': { created: 'collect', details: 'collect', list: 'collects', initiatedAt: '/api/v1/collect' },
  'recharge': { created: 'recharge', details: 'recharge', list: 'recharges', initiatedAt: '/api/v1/recharge' },
  'disbursement': { created: 'disbursement', details: 'disbursement', list: 'disbursements', initiatedAt: '/api/v1/disbursement' },
  'withdraw': { created: 'withdraw', details: 'withdraw', list: 'disbursements', initiatedAt: '/api/v1/withdraw' },
  'transfer': { created: 'transfer', details: 'transfer', list: 'transfers', initiatedAt: '/api/v1/transfer' },
  'refund': { created: 'refund', details: 'refund', list: 'refunds', initiatedAt: '/api/v1/collect/{token}/refund' },
} as const
