// Generated from the OpenAPI document by `npm run client:generate`: do not edit.
/** Where each kind's record sits in `data`, as the document says. */
export const operationDataKeys = {
  'collect': { created: 'collect', details: 'collect', list: 'collects' },
  'recharge': { created: 'recharge', details: 'recharge', list: 'recharges' },
  'disbursement': { created: 'disbursement', details: 'disbursement', list: 'disbursements' },
  'withdraw': { created: 'withdraw', details: 'withdraw', list: 'disbursements' },
  'transfer': { created: 'transfer', details: 'transfer', list: 'transfers' },
} as const
