/** A wrong invocation: printed with the usage, exit code 2, nothing written. */
export class UsageError extends Error {}

/** A well-formed command that cannot be carried out (unknown merchant...): exit code 1. */
export class CommandError extends Error {}

export const usage = `Usage: sika <command> [options]

Commands:
  serve                                   start the API (migrates, creates the demo merchant on first start)
  migrate                                 apply pending database migrations
  merchant create --name NAME [--json]    create a merchant with sandbox and live keys and webhook secrets
  merchant list [--json]                  list merchants and their active api keys
  merchant suspend ID                     refuse the merchant's requests (403) until activated
  merchant activate ID                    lift a suspension
  key rotate ID --mode sandbox|live [--json]
                                          issue a new key pair for the mode and revoke the old one
  key revoke API_KEY                      revoke one key pair
  fees list [MERCHANT_ID] [--json]        the default fee schedule, and the merchant's own rows
  fees set MERCHANT_ID --kind KIND --channel CHANNEL|* [--country CC|*]
           --percentage P [--fixed F] --bearer merchant|customer
                                          give a merchant its own fee row (F in the country's currency)
  webhook-secret rotate MERCHANT_ID --mode sandbox|live [--json]
                                          a new webhook secret for the mode's callbacks; the old one
                                          keeps signing them for 24 hours
  balance MERCHANT_ID [--json]            balances and holds, per mode and currency
  simulate OPERATOR... [--port N] [--sika-url URL] [--operators-file FILE]
           [--channel C] [--countries CI,SN] [--webhook-url URL]   (these three: one operator only)
                                          run operator simulators (mtn-momo, wave, orange-money,
                                          pawapay) on 127.0.0.1 and print, or write to FILE, the
                                          OPERATORS_FILE that connects Sika to them
  verify [--json]                         check the whole store: balances against the ledger, events
                                          and scheduled work against operations; exit 1 naming each problem

Environment: DATABASE_URL (SQLite path, file: URL or postgres:// URL), and the settings in the README.
`
