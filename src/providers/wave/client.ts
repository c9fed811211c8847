import { callOperator, type OperatorAnswer, readFromOperator } from '../operator-http.ts'

export type WaveAnswer = OperatorAnswer

/** Wave's HTTP: the API key as a bearer token on every call (Wave's keys do not expire). */
export function createWaveClient(baseUrl: string, apiKey: string) {
  return (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) =>
    callOperator(`${baseUrl}${path}`, method, { authorization: `Bearer ${apiKey}`, ...headers }, body)
}

export type WaveCall = ReturnType<typeof createWaveClient>

/** A GET of Wave's kept byte for byte (a page of transactions, as evidence), with the same key. */
export function createWaveDocumentReader(baseUrl: string, apiKey: string) {
  return (path: string) => readFromOperator(`${baseUrl}${path}`, { authorization: `Bearer ${apiKey}` })
}

export type WaveDocumentRead = ReturnType<typeof createWaveDocumentReader>
