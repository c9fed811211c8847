/**
 * A wrong invocation: exit code 2, nothing written. It says the one thing that is wrong, and is
 * printed with the usage of the command it names (`words`, such as member invite), or of them
 * all when it names none.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    public words: readonly string[] = [],
  ) {
    super(message)
  }
}

/** The value of a required option that must be one of `choices`: missing and wrong are told apart. */
export function oneOf<T extends string>(option: string, value: string | undefined, choices: readonly T[]): T {
  if (value === undefined || value === '') throw new UsageError(`needs --${option}: ${listed(choices)}`)
  const chosen = choices.find((choice) => choice === value)
  if (chosen === undefined) throw new UsageError(`--${option} is ${listed(choices)}, not ${value}`)
  return chosen
}

/** The positional arguments a command takes, by name (MERCHANT_ID...): the first missing, or the first extra. */
export function positionalsNamed(given: readonly string[], names: readonly string[]): string[] {
  const missing = names[given.length]
  if (missing !== undefined) throw new UsageError(`needs ${missing}`)
  const extra = given[names.length]
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`)
  return [...given]
}

/** `a`, `a or b`, `a, b or c`. */
export function listed(choices: readonly string[]): string {
  const last = choices.at(-1) ?? ''
  return choices.length <= 1 ? last : `${choices.slice(0, -1).join(', ')} or ${last}`
}

/** A well-formed command that cannot be carried out (unknown merchant...): exit code 1. */
export class CommandError extends Error {}

/** One command: the words that name it, its synopsis, a summary for the overview, and what --help adds. */
interface CommandHelp {
  readonly words: readonly string[]
  /** The synopsis after `sika`, one line per entry. */
  readonly synopsis: readonly string[]
  /** Its lines in the overview's right-hand column. */
  readonly summary: readonly string[]
  /** Options and behaviour, shown by `sika <command> --help`. */
  readonly details?: string
}

const commands: readonly CommandHelp[] = [
  {
    words: ['serve'],
    synopsis: ['serve'],
    summary: ['start the API (migrates, creates the demo merchant on first start)'],
    details: `Configured by the environment and by .env in the folder it runs in (the environment wins), read
once at start (a bad value stops it, naming the setting); every sika command reads the same:
  PORT              HTTP port (3000)
  HOST              interface to listen on (127.0.0.1; HOST=0.0.0.0 in a container, so that
                    the container's published port reaches it)
  DATABASE_URL      a SQLite file path or a postgres:// URL (default: a SQLite file in ./data)
  PUBLIC_BASE_URL   the address merchants and operators reach Sika at (http://localhost:$PORT)
  OPERATORS_FILE    the JSON file of live operator connections (docs/guide/live-mode.md)
The README's Configuration table lists every setting.`,
  },
  {
    words: ['migrate'],
    synopsis: ['migrate'],
    summary: ['apply pending database migrations'],
    details: 'Also done by `sika serve` at every start. Reads DATABASE_URL.',
  },
  {
    words: ['merchant', 'create'],
    synopsis: ['merchant create --name NAME [--json]'],
    summary: ['create a merchant with sandbox and live keys and webhook secrets'],
    details: `  --name NAME   the merchant's name, 1 to 100 characters
  --json        print one JSON object: id, name, sandbox and live (each apiKey, secretKey,
                webhookSecret), and webhookSecret (the sandbox one)
The secret keys and webhook secrets are shown only now: they are stored as hashes or encrypted.`,
  },
  {
    words: ['merchant', 'list'],
    synopsis: ['merchant list [--json]'],
    summary: ['list merchants and their active api keys'],
  },
  {
    words: ['merchant', 'suspend'],
    synopsis: ['merchant suspend ID'],
    summary: ["refuse the merchant's requests (403) until activated"],
  },
  {
    words: ['merchant', 'activate'],
    synopsis: ['merchant activate ID'],
    summary: ['lift a suspension'],
  },
  {
    words: ['merchant', 'show'],
    synopsis: ['merchant show ID [--json]'],
    summary: ['whether its payouts are paused, and its limits'],
    details: `  --json   print one JSON object: id, payoutsPaused, payoutsPausedReason, and limits (each
           mode, currency, maxAmount, dailyPayoutLimit; null: none), amounts in major units`,
  },
  {
    words: ['merchant', 'pause-payouts'],
    synopsis: ['merchant pause-payouts ID --reason TEXT'],
    summary: [
      "refuse the merchant's disbursements, withdraws, transfers and",
      'payout batches (403 payouts_paused); collects go on',
    ],
    details: `  --reason TEXT   why (up to 500 characters): the refusals' message gives it to the merchant
Every instance refuses them within a second. Audited in the merchant's audit log.`,
  },
  {
    words: ['merchant', 'resume-payouts'],
    synopsis: ['merchant resume-payouts ID'],
    summary: ['let the merchant pay out again'],
  },
  {
    words: ['merchant', 'limit'],
    synopsis: [
      'merchant limit ID --mode sandbox|live --currency CODE',
      '         [--max-amount N] [--daily-payout-limit N]',
    ],
    summary: ["set the merchant's limits in a mode and currency", '(a limit left out is removed)'],
    details: `  --mode sandbox|live        the mode the limits hold in
  --currency CODE            the limits' currency: XOF, XAF, GHS, KES or UGX
  --max-amount N             the largest amount of one operation, collects included
  --daily-payout-limit N     what its payouts (disbursements, withdraws, transfers' to sides,
                             payout batches' items) may take from its balance in a day (UTC),
                             fees it bears included
Past either, an initiation is 422 limit_exceeded and nothing is made. Every instance applies a
change within a second. Audited in the merchant's audit log.`,
  },
  {
    words: ['merchant', 'set'],
    synopsis: ['merchant set ID --require-batch-approval on|off'],
    summary: [
      "whether the merchant's API payout batches wait for",
      "a dashboard member's approval (off by default)",
    ],
    details: `  --require-batch-approval on|off
                on: every payout batch made through the API awaits approval by a
                finance, admin or owner member in the dashboard before any
                payout goes out; off: API batches go out at once (a batch made
                in the dashboard always awaits a second member's approval)`,
  },
  {
    words: ['key', 'rotate'],
    synopsis: ['key rotate ID --mode sandbox|live [--json]'],
    summary: ['issue a new key pair for the mode and revoke the old one'],
    details: `  --mode sandbox|live   which pair: sandbox keys are pk_test_/sk_test_, live ones pk_live_/sk_live_
  --json                print the new pair as one JSON object
The old pair answers 401 from then on; the new secret is shown only now.`,
  },
  {
    words: ['key', 'revoke'],
    synopsis: ['key revoke API_KEY'],
    summary: ['revoke one key pair'],
  },
  {
    words: ['member', 'invite'],
    synopsis: ['member invite MERCHANT_ID --email EMAIL --role ROLE [--json]'],
    summary: ['invite a dashboard member; prints the', 'invitationUrl (one use, 72 h)'],
    details: `  --email EMAIL   the person's email: they sign in with it
  --role ROLE     viewer, support, finance, developer, admin or owner
  --json          print one JSON object: invitationUrl, email, role, expiresAt (ISO 8601)
Give the invitationUrl to the person: it is shown only now. Opening it, they choose a name and
a password, then enrol an authenticator app.`,
  },
  {
    words: ['member', 'list'],
    synopsis: ['member list MERCHANT_ID [--json]'],
    summary: ["the merchant's dashboard members: email, role,", 'enrolled, created, name'],
  },
  {
    words: ['member', 'remove'],
    synopsis: ['member remove MERCHANT_ID --email EMAIL'],
    summary: ['remove a member and end their sessions (never the last owner)'],
  },
  {
    words: ['member', 'reset-totp'],
    synopsis: ['member reset-totp MERCHANT_ID --email EMAIL'],
    summary: [
      "clear a member's authenticator and recovery codes and end",
      'their sessions; their next sign-in enrols a new authenticator',
    ],
  },
  {
    words: ['platform-member', 'invite'],
    synopsis: ['platform-member invite --email EMAIL --role ROLE [--json]'],
    summary: ['invite a member of the platform console; prints the', 'invitationUrl (one use, 72 h)'],
    details: `  --email EMAIL   the person's email: they sign in to /console with it
  --role ROLE     analyst, support, risk, finance or admin
  --json          print one JSON object: invitationUrl, email, role, expiresAt (ISO 8601)
Give the invitationUrl to the person: it is shown only now. Opening it, they choose a name and
a password, then enrol an authenticator app.`,
  },
  {
    words: ['platform-member', 'list'],
    synopsis: ['platform-member list [--json]'],
    summary: ["the platform console's members: email, role,", 'enrolled, created, name'],
  },
  {
    words: ['platform-member', 'remove'],
    synopsis: ['platform-member remove --email EMAIL'],
    summary: ['remove a platform member and end their console sessions', '(never the last admin)'],
  },
  {
    words: ['fees', 'list'],
    synopsis: ['fees list [MERCHANT_ID] [--json]'],
    summary: ["the default fee schedule, and the merchant's own rows"],
  },
  {
    words: ['fees', 'set'],
    synopsis: [
      'fees set MERCHANT_ID --kind KIND --channel CHANNEL|* [--country CC|*]',
      '         --percentage P [--fixed F] --bearer merchant|customer',
    ],
    summary: ["give a merchant its own fee row (F in the country's currency)"],
    details: `  --kind KIND            collect, recharge, disbursement or withdraw (a transfer's from side is
                         priced as a collect, its to side as a disbursement)
  --channel CHANNEL|*    an operator code (GET /api/v1/channels), or * for every channel
  --country CC|*         an ISO country code, or * (the default) for every country
  --percentage P         1.5 means 1.5 % of the amount
  --fixed F              an amount added to the fee, in the country's currency (needs --country)
  --bearer merchant      the merchant's balance bears the fee (supportedByAccount true)
  --bearer customer      the customer bears it: pays it on top of a cash-in, receives that much
                         less from a cash-out (supportedByAccount false)
Running instances price with the new row within 500 ms.`,
  },
  {
    words: ['webhook-secret', 'rotate'],
    synopsis: ['webhook-secret rotate MERCHANT_ID --mode sandbox|live [--json]'],
    summary: [
      "a new webhook secret for the mode's callbacks; the old one",
      'keeps signing them for 24 hours',
    ],
  },
  {
    words: ['balance'],
    synopsis: ['balance MERCHANT_ID [--json]'],
    summary: ['balances and holds, per mode and currency'],
  },
  {
    words: ['simulate'],
    synopsis: [
      'simulate OPERATOR... [--port N] [--sika-url URL] [--operators-file FILE]',
      '         [--channel C] [--countries CI,SN] [--webhook-url URL]   (these three: one operator only)',
    ],
    summary: [
      'run operator simulators (mtn-momo, wave, orange-money,',
      'pawapay) on 127.0.0.1 and print, or write to FILE, the',
      'OPERATORS_FILE that connects Sika to them',
    ],
    details: `  OPERATOR...            one or more of mtn-momo, wave, orange-money, pawapay
  --port N               the first simulator's port, the next ones the following ports (0: free ones)
  --sika-url URL         Sika's address: each simulator sends its notifications under it
  --operators-file FILE  write the OPERATORS_FILE that connects Sika to the simulators there
  --channel C            the channel the entry names (one operator only)
  --countries CI,SN      the countries the entry serves (one operator only)
  --webhook-url URL      where the simulator sends its notifications (one operator only)
It prints the test numbers that choose each outcome, and stops on Ctrl-C.`,
  },
  {
    words: ['reconcile'],
    synopsis: ['reconcile --connection ID --date YYYY-MM-DD [--json]'],
    summary: [
      "prove a connection's day against its operator: lines",
      'matched, breaks found, what the status endpoint repaired',
    ],
    details: `  --connection ID        the connection's id in OPERATORS_FILE
  --date YYYY-MM-DD      the day, in RECONCILIATION_TIMEZONE (UTC by default); today runs the day so far
Exit 0 when the run completed, whatever it found; 1 when it failed. docs/guide/reconciliation.md
says what each break means.`,
  },
  {
    words: ['reconcile', 'breaks'],
    synopsis: ['reconcile breaks [--connection ID] [--state open] [--json]'],
    summary: ['list the reconciliation breaks'],
  },
  {
    words: ['reconcile', 'import'],
    synopsis: ['reconcile import --connection ID --file CSV [--columns MAPPING] [--json]'],
    summary: [
      'keep an MTN MoMo or Orange Money portal export as the',
      "connection's statement of the days it covers",
    ],
    details: `  --columns MAPPING      field=column pairs, for reference, amount, date, status, direction, currency, id
                         (by default: External ID, Amount, Date, Status, Type, Currency, Transaction ID)`,
  },
  {
    words: ['reconcile', 'resolve'],
    synopsis: ['reconcile resolve|ignore BREAK_ID --reason TEXT [--by NAME] [--json]'],
    summary: [
      'close an open break with a reason; above',
      'RECONCILIATION_REVIEW_AMOUNT it waits for a second approver',
    ],
  },
  {
    words: ['verify'],
    synopsis: ['verify [--json]'],
    summary: [
      'check the whole store: balances against the ledger, events',
      'and scheduled work against operations; exit 1 naming each problem',
    ],
  },
]

const summaryColumn = 42

function overviewOf(command: CommandHelp): string {
  const left = command.synopsis.map((line) => `  ${line}`)
  const last = left.at(-1) ?? ''
  const [first, ...rest] = command.summary
  const indent = ' '.repeat(summaryColumn)
  const lines =
    last.length < summaryColumn
      ? [...left.slice(0, -1), `${last.padEnd(summaryColumn)}${first}`, ...rest.map((line) => indent + line)]
      : [...left, ...command.summary.map((line) => indent + line)]
  return lines.join('\n')
}

export const usage = `Usage: sika <command> [options]

Commands:
${commands.map(overviewOf).join('\n')}

Every command answers --help. Settings come from the environment and from .env in the folder the
command runs in, as for sika serve: DATABASE_URL (SQLite path, file: URL or postgres:// URL), and the
others in the README.
`

const isHelpFlag = (argument: string) => argument === '--help' || argument === '-h'

/** The words of the command a command line names, as far as they name one: [], [group] or [group, action]. */
export function commandWords(group: string | undefined, action: string | undefined): string[] {
  if (commands.some((command) => command.words.join(' ') === `${group} ${action}`)) return [group!, action!]
  return commands.some((command) => command.words[0] === group) ? [group!] : []
}

/** What a usage error prints: the line that says what is wrong, then the usage of the command it names. */
export function usageErrorText(error: UsageError): string {
  const named = error.words.length > 0 ? `sika ${error.words.join(' ')}` : 'sika'
  const help = error.words.length > 0 ? helpFor(['help', ...error.words]) : undefined
  return `${named}: ${error.message}\n\n${help ?? usage}`
}

/**
 * The help a command line asks for (`sika --help`, `sika help merchant`, `sika merchant create
 * -h`...), or undefined when it asks for none. The words before the flag name the command; the
 * longest group of words that names one chooses its help.
 */
export function helpFor(argv: readonly string[]): string | undefined {
  const asked = argv[0] === 'help' || argv.some(isHelpFlag)
  if (!asked) return undefined
  const words = (argv[0] === 'help' ? argv.slice(1) : argv).filter((argument) => !argument.startsWith('-'))
  const [group, action] = words
  if (group === undefined) return usage
  const exact = commands.find((command) => command.words.join(' ') === `${group} ${action}`)
  if (exact) return commandHelp([exact])
  const inGroup = commands.filter((command) => command.words[0] === group)
  if (inGroup.length === 0) throw new UsageError(`unknown command: ${group}`)
  return commandHelp(inGroup)
}

function commandHelp(matching: readonly CommandHelp[]): string {
  const [only] = matching
  if (matching.length === 1 && only) {
    const lead = 'Usage: sika '
    const synopsis = only.synopsis.map((line, index) => (index === 0 ? lead : ' '.repeat(lead.length)) + line)
    const summary = only.summary.join(' ')
    const sentence = `${summary[0]?.toUpperCase()}${summary.slice(1)}.`
    return `${synopsis.join('\n')}\n\n${sentence}\n${only.details ? `\n${only.details}\n` : ''}`
  }
  const group = matching[0]?.words[0]
  const actions = matching.map((command) => command.words[1]).join('|')
  return `Usage: sika ${group} ${actions} ...\n\n${matching.map(overviewOf).join('\n')}\n\n'sika ${group} <${actions}> --help' shows one of them.\n`
}
