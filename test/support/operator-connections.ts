import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Direction } from '../../src/domain/kinds.ts'
import type { Currency } from '../../src/domain/money.ts'
import { liveConnections } from '../../src/providers/live-adapters.ts'
import type { ProviderRequest } from '../../src/providers/provider.ts'
import type { LiveConnection } from '../../src/providers/registry.ts'

/**
 * The live connections Sika builds from an OPERATORS_FILE holding these entries (a simulator's
 * `connection()`), read through the same path as at start: the adapters the console and the
 * reconciliation will be handed.
 */
export function connectionsOf(
  entries: readonly Record<string, unknown>[],
  publicBaseUrl = 'http://127.0.0.1:9',
): LiveConnection[] {
  const directory = mkdtempSync(join(tmpdir(), 'sika-connections-'))
  try {
    const file = join(directory, 'operators.json')
    writeFileSync(file, JSON.stringify({ connections: entries }))
    return liveConnections(file, publicBaseUrl)
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/** A side as the write pipeline hands it to an adapter: its token and role, and its operator reference fixed first. */
export function sideRequest(
  fields: Pick<ProviderRequest, 'direction' | 'channel' | 'country' | 'amountMinor' | 'phoneNumber'> & {
    currency?: Currency
  },
): ProviderRequest & { direction: Direction } {
  return {
    token: randomUUID().replaceAll('-', '').slice(0, 20),
    role: 'main',
    mode: 'live',
    currency: 'XOF',
    operatorReference: randomUUID(),
    ...fields,
  }
}
