import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FinalStatus } from '../../domain/status.ts'
import type { ProviderAdapter, ProviderNotification, ProviderOutcome, ProviderRequest } from '../provider.ts'

type SandboxBehaviour =
  | { kind: 'at-once'; outcome: ProviderOutcome }
  | { kind: 'after-delay'; outcome: ProviderOutcome & { status: FinalStatus } }
  | { kind: 'until-expiry' }
  | { kind: 'customer-decides' }

const reasons = {
  insufficientFunds: { code: 'insufficient_funds', message: 'The customer wallet has insufficient funds.' },
  declined: { code: 'customer_declined', message: 'The customer declined the payment.' },
  unavailable: { code: 'operator_unavailable', message: 'The operator is unavailable.' },
}

/**
 * The built-in sandbox operator (CONTRACT.md, Sandbox): the customer phone number's last
 * three digits choose the outcome, so an integration can exercise every path on purpose.
 */
export const sandboxBehaviours: Record<string, SandboxBehaviour> = {
  '900': { kind: 'after-delay', outcome: { status: 'succeeded' } },
  '901': { kind: 'at-once', outcome: { status: 'failed', reason: reasons.insufficientFunds } },
  '902': { kind: 'after-delay', outcome: { status: 'failed', reason: reasons.insufficientFunds } },
  '903': { kind: 'after-delay', outcome: { status: 'canceled', reason: reasons.declined } },
  '904': { kind: 'at-once', outcome: { status: 'error', reason: reasons.unavailable } },
  '905': { kind: 'until-expiry' },
  '906': { kind: 'customer-decides' },
}

export function sandboxBehaviourFor(phoneNumber: string): SandboxBehaviour {
  return sandboxBehaviours[phoneNumber.slice(-3)] ?? { kind: 'at-once', outcome: { status: 'succeeded' } }
}

export interface SandboxOptions {
  delayMs: number
  /** Signs the sandbox's own notifications (POST /providers/sandbox/notifications). */
  notificationKey: Buffer
}

export function createSandboxAdapter(options: SandboxOptions): ProviderAdapter {
  const reference = (request: ProviderRequest) => `sbx_${request.token}_${request.role}`
  const answer = (request: ProviderRequest, nowUs: number): ProviderOutcome => {
    const behaviour = sandboxBehaviourFor(request.phoneNumber)
    const providerReference = reference(request)
    switch (behaviour.kind) {
      case 'at-once':
        return { ...behaviour.outcome, providerReference }
      case 'after-delay': {
        const elapsedMs = (nowUs - (request.submittedAtUs ?? nowUs)) / 1000
        if (elapsedMs >= options.delayMs) return { ...behaviour.outcome, providerReference }
        return { status: 'pending', providerReference, pollAfterMs: Math.max(1, options.delayMs - elapsedMs) }
      }
      case 'until-expiry':
        return { status: 'pending', providerReference }
      case 'customer-decides':
        return { status: 'pending', providerReference, needsCustomerAction: true }
    }
  }
  return {
    name: 'sandbox',
    initiate: async (request, nowUs) =>
      answer({ ...request, submittedAtUs: request.submittedAtUs ?? nowUs }, nowUs),
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

/** The sandbox operator's notification signature: hex HMAC-SHA256 of the raw body. */
export function signSandboxNotification(key: Buffer, rawBody: string): string {
  return createHmac('sha256', key).update(rawBody).digest('hex')
}

const notificationStatuses: Record<string, ProviderOutcome> = {
  SUCCESSFUL: { status: 'succeeded' },
  FAILED: { status: 'failed', reason: reasons.insufficientFunds },
  REJECTED: { status: 'canceled', reason: reasons.declined },
  ERROR: { status: 'error', reason: reasons.unavailable },
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
    token: match[1]!,
    role: match[2] as ProviderNotification['role'],
    outcome: { ...outcome, providerReference: reference as string },
  }
}
