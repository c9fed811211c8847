import { createHmac, timingSafeEqual } from 'node:crypto'
import type { SideRole } from '../../domain/kinds.ts'
import { type SandboxBehaviour, sandboxBehaviourFor, sandboxReasons } from '../../domain/sandbox-outcomes.ts'
import type { ProviderAdapter, ProviderNotification, ProviderOutcome, ProviderRequest } from '../provider.ts'

export interface SandboxOptions {
  delayMs: number
  /** Signs the sandbox's own notifications (POST /providers/sandbox/notifications). */
  notificationKey: Buffer
  /** The hosted checkout page where the sandbox's customer decides (906). */
  checkoutUrl(token: string): string
}

/**
 * The built-in sandbox operator (CONTRACT.md, Sandbox): the customer phone number's last three
 * digits choose the outcome (domain/sandbox-outcomes.ts). It decides without I/O, so it also
 * answers at once, inside the initiation's own transaction.
 */
export function createSandboxAdapter(options: SandboxOptions): ProviderAdapter {
  const answer = (request: ProviderRequest, nowUs: number): ProviderOutcome =>
    outcomeOf(sandboxBehaviourFor(request.phoneNumber), request, nowUs, options)
  const initiate = (request: ProviderRequest, nowUs: number) =>
    answer({ ...request, submittedAtUs: request.submittedAtUs ?? nowUs }, nowUs)
  return {
    name: 'sandbox',
    directions: ['cash-in', 'cash-out'],
    initiate: async (request, nowUs) => initiate(request, nowUs),
    answerAtOnce: initiate,
    pollStatus: async (request, nowUs) => answer(request, nowUs),
    parseNotification: async ({ headers, rawBody }) => {
      const signature = headers['sandbox-signature']
      if (typeof signature !== 'string') return undefined
      const expected = signSandboxNotification(options.notificationKey, rawBody)
      const given = Buffer.from(signature)
      if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) return undefined
      return parseSandboxNotification(rawBody)
    },
  }
}

function outcomeOf(
  behaviour: SandboxBehaviour,
  request: ProviderRequest,
  nowUs: number,
  options: SandboxOptions,
): ProviderOutcome {
  const providerReference = `sbx_${request.token}_${request.role}`
  switch (behaviour.kind) {
    case 'at-once':
      return final(behaviour, providerReference)
    case 'after-delay': {
      const elapsedMs = (nowUs - (request.submittedAtUs ?? nowUs)) / 1000
      if (elapsedMs >= options.delayMs) return final(behaviour, providerReference)
      return { status: 'pending', providerReference, pollAfterMs: Math.max(1, options.delayMs - elapsedMs) }
    }
    case 'until-expiry':
      return { status: 'pending', providerReference }
    case 'customer-decides':
      return {
        status: 'pending',
        providerReference,
        needsCustomerAction: true,
        redirectUrl: options.checkoutUrl(request.token),
      }
  }
}

function final(
  behaviour: Extract<SandboxBehaviour, { kind: 'at-once' | 'after-delay' }>,
  providerReference: string,
): ProviderOutcome {
  if (behaviour.status === 'succeeded') return { status: 'succeeded', providerReference }
  return {
    status: behaviour.status,
    reason: behaviour.reason ?? sandboxReasons.unavailable,
    providerReference,
  }
}

/** The sandbox operator's notification signature: hex HMAC-SHA256 of the raw body. */
export function signSandboxNotification(key: Buffer, rawBody: string): string {
  return createHmac('sha256', key).update(rawBody).digest('hex')
}

const notificationStatuses: Record<string, ProviderOutcome> = {
  SUCCESSFUL: { status: 'succeeded' },
  FAILED: { status: 'failed', reason: sandboxReasons.insufficientFunds },
  REJECTED: { status: 'canceled', reason: sandboxReasons.declined },
  ERROR: { status: 'error', reason: sandboxReasons.unavailable },
}

/** Wire format: {"reference": "sbx_<token>_<role>", "status": "SUCCESSFUL" | ...}. Unknown statuses stay pending. */
function parseSandboxNotification(rawBody: string): ProviderNotification | undefined {
  let body: unknown
  try {
    body = JSON.parse(rawBody)
  } catch {
    return undefined
  }
  if (!body || typeof body !== 'object') return undefined
  const { reference, status } = body as { reference?: unknown; status?: unknown }
  const match = typeof reference === 'string' ? /^sbx_([a-z0-9-]{29})_(main|from|to)$/.exec(reference) : null
  if (!match) return undefined
  const outcome = (typeof status === 'string' && notificationStatuses[status]) || {
    status: 'pending' as const,
  }
  return {
    side: { token: match[1]!, role: match[2] as SideRole },
    outcome: { ...outcome, providerReference: reference as string },
  }
}
