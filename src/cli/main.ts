import { closeContext, createContext } from '../app/bootstrap.ts'
import type { AppContext } from '../app/context.ts'
import { ConfigError, loadConfig } from '../config.ts'
import { createLogger } from '../logger.ts'
import { applySettingsFile, readSettingsFile, settingsOutsideTheFile } from '../settings-file.ts'
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
import {
  merchantLimit,
  merchantPausePayouts,
  merchantResumePayouts,
  merchantShow,
  parseMerchantLimit,
  parsePausePayouts,
} from './merchant-control-commands.ts'
import { parsePlatformMemberCommand, platformMemberCommand } from './platform-member-commands.ts'
import { parseReconcile, reconcileCommand } from './reconcile-commands.ts'
import { serve } from './serve.ts'
import { parseSimulate, type SimulateArgs, simulate } from './simulate-command.ts'
import { CommandError, commandWords, helpFor, UsageError, usageErrorText } from './usage.ts'
import { verify } from './verify-command.ts'
import { parseWebhookSecretRotate, webhookSecretRotate } from './webhook-commands.ts'

const print = (text: string): void => {
  process.stdout.write(`${text}\n`)
}

/**
 * Every command is parsed completely before the database is opened, so a wrong invocation
 * exits 2 having written nothing; --help anywhere answers the command's usage and does nothing else.
 * Settings come from the environment and from .env in the working folder, for every command alike.
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
    const settingsFile = readSettingsFile()
    const outsideTheFile = settingsOutsideTheFile(settingsFile)
    applySettingsFile(settingsFile)
    const config = loadConfig()
    if (run === 'serve') {
      await serve(config, outsideTheFile)
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
      process.stderr.write(usageErrorText(error))
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
    const usageError = error instanceof UsageError ? error : parseArgsProblem(error, args)
    if (!usageError) throw error
    if (usageError.words.length === 0) usageError.words = commandWords(group, action)
    throw usageError
  }
}

/**
 * node:util parseArgs reports a wrong option with its own error type and a long sentence: the one
 * thing that is wrong, in the words of the other usage errors.
 */
function parseArgsProblem(error: unknown, args: string[]): UsageError | undefined {
  if (!(error instanceof TypeError && 'code' in error)) return undefined
  const option = /'(-[^' ]+)/.exec(error.message)?.[1]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option: ${option}`)
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      // parseArgs reads a value after the option that starts with "-" as another option.
      const at = option === undefined ? -1 : args.indexOf(option)
      const dashed = /argument is ambiguous/.test(error.message) && at >= 0 ? args[at + 1] : undefined
      return new UsageError(
        dashed === undefined
          ? `${option} needs a value`
          : `${option} takes a value that starts with "-" only as ${option}=${dashed}`,
      )
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(error.message)
    default:
      return String(error.code).startsWith('ERR_PARSE_ARGS') ? new UsageError(error.message) : undefined
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
      if (args.length > 0)
        throw new UsageError(
          `takes no arguments (${args[0]}): its settings come from the environment and .env`,
        )
      return 'serve'
    case 'migrate':
      if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`)
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
    case 'platform-member': {
      const parsed = parsePlatformMemberCommand(action, rest)
      return (context) => platformMemberCommand(context, parsed, print)
    }
    case 'fees':
      return feesCommand(action, rest)
    case 'webhook-secret': {
      if (action !== 'rotate') throw unknownAction(action)
      const parsed = parseWebhookSecretRotate(rest)
      return (context) => webhookSecretRotate(context, parsed, print)
    }
    case 'verify': {
      const { json } = parseJsonFlag(args, [])
      return (context) => verify(context, json, print)
    }
    case 'balance': {
      const { json, positionals } = parseJsonFlag(args, ['MERCHANT_ID'])
      return (context) => balance(context, positionals[0]!, json, print)
    }
    case 'reconcile': {
      const parsed = parseReconcile(action, rest)
      return (context) => reconcileCommand(context, parsed, print)
    }
    case 'simulate':
      return { simulate: parseSimulate(args) }
    case undefined:
      throw new UsageError('a command is required')
    default:
      throw new UsageError(`unknown command: ${group}`)
  }
}

/** A group's action that is none of its own: the group's usage lists them. */
function unknownAction(action: string | undefined): UsageError {
  return new UsageError(action === undefined ? 'needs a command' : `unknown command: ${action}`)
}

function merchantCommand(action: string | undefined, rest: string[]): Run {
  switch (action) {
    case 'create': {
      const parsed = parseMerchantCreate(rest)
      return (context) => merchantCreate(context, parsed, print)
    }
    case 'list': {
      const { json } = parseJsonFlag(rest, [])
      return (context) => merchantList(context, json, print)
    }
    case 'suspend':
    case 'activate': {
      const { positionals } = parseJsonFlag(rest, ['ID'])
      const status = action === 'suspend' ? 'suspended' : 'active'
      return (context) => merchantStatus(context, positionals[0]!, status, print)
    }
    case 'set': {
      const parsed = parseMerchantSet(rest)
      return (context) => merchantSet(context, parsed, print)
    }
    default:
      return merchantControlCommand(action, rest)
  }
}

/** What the platform controls of a merchant: its payouts paused or not, its limits. */
function merchantControlCommand(action: string | undefined, rest: string[]): Run {
  switch (action) {
    case 'show': {
      const { json, positionals } = parseJsonFlag(rest, ['ID'])
      return (context) => merchantShow(context, positionals[0]!, json, print)
    }
    case 'pause-payouts': {
      const parsed = parsePausePayouts(rest)
      return (context) => merchantPausePayouts(context, parsed, print)
    }
    case 'resume-payouts': {
      const { positionals } = parseJsonFlag(rest, ['ID'])
      return (context) => merchantResumePayouts(context, positionals[0]!, print)
    }
    case 'limit': {
      const parsed = parseMerchantLimit(rest)
      return (context) => merchantLimit(context, parsed, print)
    }
    default:
      throw unknownAction(action)
  }
}

function keyCommand(action: string | undefined, rest: string[]): Run {
  switch (action) {
    case 'rotate': {
      const parsed = parseKeyRotate(rest)
      return (context) => keyRotate(context, parsed, print)
    }
    case 'revoke': {
      const { positionals } = parseJsonFlag(rest, ['API_KEY'])
      return (context) => keyRevoke(context, positionals[0]!, print)
    }
    default:
      throw unknownAction(action)
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
      const { json } = parseJsonFlag(rest, merchantIds.length === 0 ? [] : ['MERCHANT_ID'])
      return (context) => feesList(context, merchantIds[0], json, print)
    }
    default:
      throw unknownAction(action)
  }
}
