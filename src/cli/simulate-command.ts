import { parseArgs } from 'node:util'
import { isSimulatorName, simulatorNames, simulatorOutcomes, simulators } from '../simulators/catalogue.ts'
import type { SimulatorName } from '../simulators/simulator.ts'
import { UsageError } from './usage.ts'

export interface SimulateArgs {
  name: SimulatorName
  port: number
  channel: string
  countries: string[]
  webhookUrl?: string
}

export function parseSimulate(args: string[]): SimulateArgs {
  const { values, positionals } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      channel: { type: 'string' },
      countries: { type: 'string' },
      'webhook-url': { type: 'string' },
    },
    allowPositionals: true,
  })
  const [name, extra] = positionals
  if (!name || extra !== undefined || !isSimulatorName(name))
    throw new UsageError(`simulate needs one operator: ${simulatorNames.join(', ')}`)
  const port = Number(values.port ?? 0)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError('--port is a TCP port, 0 to 65535 (0 picks a free one)')
  const countries = values.countries?.split(',').map((country) => country.trim().toUpperCase()) ?? [
    ...simulators[name].countries,
  ]
  if (countries.length === 0 || countries.some((country) => !/^[A-Z]{2}$/.test(country)))
    throw new UsageError('--countries is a comma-separated list of ISO codes, such as CI,SN')
  const webhookUrl = values['webhook-url']
  if (webhookUrl !== undefined && !/^https?:\/\//.test(webhookUrl))
    throw new UsageError(
      '--webhook-url is an http(s) URL, such as http://127.0.0.1:3000/providers/wave/notifications',
    )
  return { name, port, channel: values.channel ?? simulators[name].channel, countries, webhookUrl }
}

/**
 * Runs one operator simulator on 127.0.0.1 until interrupted, and prints the OPERATORS_FILE that
 * connects Sika to it: the whole live path can be tried on one machine.
 */
export async function simulate(args: SimulateArgs, print: (text: string) => void): Promise<void> {
  const simulator = simulators[args.name]
  const running = await simulator.start({
    port: args.port,
    host: '127.0.0.1',
    ...(args.webhookUrl ? { webhookUrl: args.webhookUrl } : {}),
  })
  const operators = { connections: [running.connection(args.channel, args.countries)] }
  print(`${args.name} simulator listening on ${running.url}

OPERATORS_FILE contents (save as operators.json, start Sika with OPERATORS_FILE=operators.json):
${JSON.stringify(operators, null, 2)}

The customer's phone number chooses the outcome by its last three digits (${simulator.paidOn === 'hosted page' ? 'entered on the hosted payment page; without one, a person decides there' : 'any other ending succeeds'}):
${Object.entries(simulatorOutcomes)
  .map(([ending, outcome]) => `  ...${ending}  ${outcome}`)
  .join('\n')}

${args.webhookUrl || args.name === 'mtn-momo' || args.name === 'orange-money' ? '' : `This operator sends its callbacks to an address set in its dashboard: pass --webhook-url http://<sika>/providers/${args.name}/notifications.\n`}Control paths (no credentials): ${running.url}/_simulator/requests, /_simulator/callbacks
Stop with Ctrl-C.`)
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await running.close()
}
