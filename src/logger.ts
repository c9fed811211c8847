import pino, { type Logger } from 'pino'
import type { LogLevel } from './config.ts'

/** Secrets never reach a log line, even when a header or an object is logged whole. */
export const redactedPaths = [
  'req.headers["secret-key"]',
  'req.headers.authorization',
  'headers["secret-key"]',
  '*.secretKey',
  '*.secret_key',
  '*.webhookSecret',
  '*.secret_hash',
  '*.secret_encrypted',
]

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactedPaths, censor: '[redacted]' } }, destination)
}
