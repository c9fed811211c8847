import { closeContext, createContext } from '../app/bootstrap.ts'
import type { AppContext } from '../app/context.ts'
import { ConfigError, loadConfig } from '../config.ts'
import { createLogger } from '../logger.ts'
import { balance, feesList, feesSet, parseFeesSet } from './ledger-commands.ts'
import { memberCommand, parseMemberCommand } from './member-commands.ts'
import {
  keyRevoke,
  keyRotate,
  merchantCreate,
  merchantList,
  merchantSet,
  merchantStatus,
  parseJsonFlag,
  parseKeyRotate,
  parseMerchantCreate,
  parseMerchantSet,
} from './merchant-commands.ts'
import { serve } from './serve.ts'
import { parseSimulate, type SimulateArgs, simulate } from './simulate-command.ts'
import { CommandError, helpFor, UsageError, usage } from './usage.ts'
import { verify } from './verify-command.ts'
import { parseWebhookSecretRotate, webhookSecretRotate } from './webhook-commands.ts'

const print = (text: string): void => {
  process.stdout.write(`${text}\n`)
}

/**
 * Every command is parsed completely before the database is opened, so a wrong invocation
 * exits 2 having written nothing; --help anywhere answers the command's usage and does nothing else.
 */
export async function main(argv: string[]): Promise<number> {
  const [group, action, ...rest] = argv
  try {
    const help = helpFor(argv)
    if (help !== undefined) {
      process.stdout.write(help)
      return 0
    }
    const run = parseCommand(group, action, rest)
    if (typeof run === 'object') {
      await simulate(run.simulate, print)
      return 0
    }
    const config = loadConfig()
    if (run === 'serve') {
      await serve(config)
      return -1
    }
    const context = await createContext(
      config,
      createLogger(process.env.LOG_LEVEL ? config.logLevel : 'warn'),
    )
    try {
      await run(context)
    } finally {
      await closeContext(context)
    }
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`sika: ${error.message}\n\n${usage}`)
      return 2
    }
    if (error instanceof CommandError || error instanceof ConfigError) {
      process.stderr.write(`sika: ${error.message}\n`)
      return 1
    }
    throw error
  }
}

/** A command's work: most open the store; serve runs the API; simulate needs no database at all. */
type Run = 'serve' | { simulate: SimulateArgs } | ((context: AppContext) => Promise<void>)

function parseCommand(group: string | undefined, action: string | undefined, rest: string[]): Run {
  const args = action === undefined ? rest : [action, ...rest]
  try {
    return commandFor(group, action, rest, args)
  } catch (error) {
    // node:util parseArgs reports unknown options with its own error type.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(error.message)
    }
    throw error
  }
}

function commandFor(
  group: string | undefined,
  action: string | undefined,
  rest: string[],
  args: string[],
): Run {
  switch (group) {
    case 'serve':
      if (args.length > 0) throw new UsageError('serve takes no arguments; configure it with the environment')
      return 'serve'
    case 'migrate':
      if (args.length > 0) throw new UsageError('migrate takes no arguments')
      return async (context) => {
        // createContext already migrated; report what that start applied.
        const applied = context.appliedMigrations
        print(applied.length === 0 ? 'migrations are up to date' : `applied: ${applied.join(', ')}`)
      }
    case 'merchant':
      return merchantCommand(action, rest)
    case 'key':
      return keyCommand(action, rest)
    case 'member': {
      const parsed = parseMemberCommand(action, rest)
      return (context) => memberCommand(context, parsed, print)
    }
    case 'fees':
      return feesCommand(action, rest)
    case 'webhook-secret': {
      if (action !== 'rotate') throw new UsageError(`unknown webhook-secret command: ${action ?? '(none)'}`)
      const parsed = parseWebhookSecretRotate(rest)
      return (context) => webhookSecretRotate(context, parsed, print)
    }
    case 'verify': {
      const { json } = parseJsonFlag(args, 0, 'verify takes no arguments')
      return (context) => verify(context, json, print)
    }
    case 'balance': {
      const { json, positionals } = parseJsonFlag(args, 1, 'balance needs one merchant ID')
      return (context) => balance(context, positionals[0]!, json, print)
    }
    case 'simulate':
      return { simulate: parseSimulate(args) }
    case undefined:
      throw new UsageError('a command is required')
    default:
      throw new UsageError(`unknown command: ${group}`)
  }
}

function merchantCommand(action: string | undefined, rest: string[]): Run {
  switch (action) {
    case 'create': {
      const parsed = parseMerchantCreate(rest)
      return (context) => merchantCreate(context, parsed, print)
    }
    case 'list': {
      const { json } = parseJsonFlag(rest, 0, 'merchant list takes no arguments')
      return (context) => merchantList(context, json, print)
    }
    case 'suspend':
    case 'activate': {
      const { positionals } = parseJsonFlag(rest, 1, `merchant ${action} needs one merchant ID`)
      const status = action === 'suspend' ? 'suspended' : 'active'
      return (context) => merchantStatus(context, positionals[0]!, status, print)
    }
    case 'set': {
      const parsed = parseMerchantSet(rest)
      return (context) => merchantSet(context, parsed, print)
    }
    default:
      throw new UsageError(`unknown merchant command: ${action ?? '(none)'}`)
  }
}

function keyCommand(action: string | undefined, rest: string[]): Run {
  switch (action) {
    case 'rotate': {
      const parsed = parseKeyRotate(rest)
      return (context) => keyRotate(context, parsed, print)
    }
    case 'revoke': {
      const { positionals } = parseJsonFlag(rest, 1, 'key revoke needs one API_KEY')
      return (context) => keyRevoke(context, positionals[0]!, print)
    }
    default:
      throw new UsageError(`unknown key command: ${action ?? '(none)'}`)
  }
}

function feesCommand(action: string | undefined, rest: string[]): Run {
  switch (action) {
    case 'set': {
      const row = parseFeesSet(rest)
      return (context) => feesSet(context, row, print)
    }
    case 'list': {
      const merchantIds = rest.filter((arg) => !arg.startsWith('--'))
      if (merchantIds.length > 1) throw new UsageError('fees list takes at most one merchant ID')
      const { json } = parseJsonFlag(rest, merchantIds.length, 'fees list takes at most one merchant ID')
      return (context) => feesList(context, merchantIds[0], json, print)
    }
    default:
      throw new UsageError(`unknown fees command: ${action ?? '(none)'}`)
  }
}
