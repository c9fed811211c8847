import { startMtnMomoSimulator } from './mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from './orange-money/orange-money-simulator.ts'
import { startPawapaySimulator } from './pawapay/pawapay-simulator.ts'
import type { RunningSimulator, SimulatorName, SimulatorOptions } from './simulator.ts'
import { simulatorOutcomes } from './test-numbers.ts'
import { startWaveSimulator } from './wave/wave-simulator.ts'

/** What `sika simulate` can run: each operator's simulator, and the channel and countries it connects by default. */
export const simulators: Record<
  SimulatorName,
  {
    start(options: SimulatorOptions): Promise<RunningSimulator>
    channel: string
    countries: readonly string[]
    /** How a person pays: on a hosted page the simulator serves, or on the phone (test numbers decide). */
    paidOn: 'hosted page' | 'phone'
  }
> = {
  'mtn-momo': { start: startMtnMomoSimulator, channel: 'mtn-momo', countries: ['CI'], paidOn: 'phone' },
  wave: { start: startWaveSimulator, channel: 'wave', countries: ['SN'], paidOn: 'hosted page' },
  'orange-money': {
    start: startOrangeMoneySimulator,
    channel: 'orange-money',
    countries: ['CI'],
    paidOn: 'hosted page',
  },
  pawapay: { start: startPawapaySimulator, channel: 'moov-money', countries: ['BJ'], paidOn: 'phone' },
}

export const simulatorNames = Object.keys(simulators) as SimulatorName[]

export function isSimulatorName(value: string): value is SimulatorName {
  return Object.hasOwn(simulators, value)
}

export { simulatorOutcomes }
