import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { isSimulatorName, simulatorNames, simulatorOutcomes, simulators } from '../simulators/catalogue.ts'
import type { RunningSimulator, SimulatorName } from '../simulators/simulator.ts'
import { listed, UsageError } from './usage.ts'

export interface SimulateArgs {
  names: SimulatorName[]
  /** The first simulator's port; the next ones take the following ports (0: each a free one). */
  port: number
  /** Only with one operator: its channel and countries in the printed entry. */
  channel?: string
  countries?: string[]
  webhookUrl?: string
  /** Sika's base URL: each operator that needs one gets its notifications URL under it. */
  sikaUrl?: string
  /** Where to write the OPERATORS_FILE that connects Sika to every simulator started. */
  operatorsFile?: string
}

const httpUrl = /^https?:\/\/[^\s]+$/

export function parseSimulate(args: string[]): SimulateArgs {
  const { values, positionals } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      channel: { type: 'string' },
      countries: { type: 'string' },
      'webhook-url': { type: 'string' },
      'sika-url': { type: 'string' },
      'operators-file': { type: 'string' },
    },
    allowPositionals: true,
  })
  if (positionals.length === 0)
    throw new UsageError(`needs OPERATOR...: one or more of ${listed(simulatorNames)}`)
  const unknown = positionals.find((name) => !isSimulatorName(name))
  if (unknown !== undefined)
    throw new UsageError(`unknown operator: ${unknown}; the operators are ${listed(simulatorNames)}`)
  const names = positionals.filter(isSimulatorName)
  const twice = names.find((name, index) => names.indexOf(name) !== index)
  if (twice !== undefined) throw new UsageError(`${twice} is named twice`)
  const port = Number(values.port ?? 0)
  if (!Number.isInteger(port) || port < 0 || port + names.length - 1 > 65_535)
    throw new UsageError(`--port ${values.port} is not a TCP port, 0 to 65535 (0 picks a free one)`)
  if (names.length > 1 && (values.channel || values.countries || values['webhook-url']))
    throw new UsageError(
      '--channel, --countries and --webhook-url go with one operator; use --sika-url for several',
    )
  const countries = values.countries?.split(',').map((country) => country.trim().toUpperCase())
  if (countries && (countries.length === 0 || countries.some((country) => !/^[A-Z]{2}$/.test(country))))
    throw new UsageError(
      `--countries ${values.countries} is not a comma-separated list of ISO codes, such as CI,SN`,
    )
  for (const option of ['webhook-url', 'sika-url'] as const) {
    const url = values[option]
    if (url !== undefined && !httpUrl.test(url))
      throw new UsageError(`--${option} ${url} is not an http(s) URL, such as http://127.0.0.1:3000`)
  }
  return {
    names,
    port,
    channel: values.channel,
    countries,
    webhookUrl: values['webhook-url'],
    sikaUrl: values['sika-url']?.replace(/\/+$/, ''),
    operatorsFile: values['operators-file'],
  }
}

/**
 * Runs operator simulators on 127.0.0.1 until interrupted, and prints (or writes) the
 * OPERATORS_FILE that connects Sika to them: the whole live path can be tried on one machine.
 */
export async function simulate(args: SimulateArgs, print: (text: string) => void): Promise<void> {
  const running: RunningSimulator[] = []
  try {
    for (const [index, name] of args.names.entries()) {
      const webhookUrl =
        args.webhookUrl ?? (args.sikaUrl && `${args.sikaUrl}/providers/${name}/notifications`)
      running.push(
        await simulators[name].start({
          port: args.port === 0 ? 0 : args.port + index,
          host: '127.0.0.1',
          ...(webhookUrl ? { webhookUrl } : {}),
        }),
      )
    }
    const connections = running.map((simulator, index) => {
      const name = args.names[index]!
      return simulator.connection(
        args.channel ?? simulators[name].channel,
        args.countries ?? simulators[name].countries,
      )
    })
    const operators = JSON.stringify({ connections }, null, 2)
    if (args.operatorsFile) writeFileSync(args.operatorsFile, `${operators}\n`, { mode: 0o600 })
    // The signals are heard before the line that invites them is printed: whoever reads it may
    // send SIGTERM before this process runs its next statement.
    const interrupted = new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    })
    print(describe(args, running, operators))
    await interrupted
  } finally {
    for (const simulator of running) await simulator.close()
  }
}

function describe(args: SimulateArgs, running: RunningSimulator[], operators: string): string {
  const listening = args.names.map((name, index) => `${name} simulator listening on ${running[index]!.url}`)
  const hosted = args.names.filter((name) => simulators[name].paidOn === 'hosted page')
  const unaddressed = args.names.filter(
    (name) => !args.webhookUrl && !args.sikaUrl && name !== 'mtn-momo' && name !== 'orange-money',
  )
  return `${listening.join('\n')}

${args.operatorsFile ? `OPERATORS_FILE written to ${args.operatorsFile}:` : 'OPERATORS_FILE contents (save as operators.json, start Sika with OPERATORS_FILE=operators.json):'}
${operators}

The customer's phone number chooses the outcome by its last three digits (any other ending succeeds${hosted.length > 0 ? `; on ${hosted.join(' and ')} it is entered on the hosted payment page, and without one a person decides there` : ''}):
${Object.entries(simulatorOutcomes)
  .map(([ending, outcome]) => `  ...${ending}  ${outcome}`)
  .join('\n')}

${unaddressed.map((name) => `${name} sends its callbacks to an address set in its dashboard: pass --sika-url http://<sika> (or --webhook-url).\n`).join('')}Control paths (no credentials): <simulator>/_simulator/requests, /_simulator/callbacks
Stop with Ctrl-C.`
}
