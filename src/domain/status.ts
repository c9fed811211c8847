/** The five statuses: the names of the spec's outcome URLs. */
export const statuses = ['pending', 'succeeded', 'failed', 'canceled', 'error'] as const
export type Status = (typeof statuses)[number]
export type FinalStatus = Exclude<Status, 'pending'>

export function isFinal(status: Status): status is FinalStatus {
  return status !== 'pending'
}

/** `pending` may move once to any of the other four; those four never move again. */
export function canTransition(from: Status, to: Status): boolean {
  return from === 'pending' && to !== 'pending'
}

export interface FailureReason {
  code: string
  message: string
}
