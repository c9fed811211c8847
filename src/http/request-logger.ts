import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino'

/**
 * Each request's logger (its lines carry the requestId), made only when the request logs a line
 * at an enabled level. pino's child() serialises its bindings and prepares redaction every time,
 * and at the levels a service runs at most requests log nothing.
 */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger
}

type LogCall = (...args: unknown[]) => void

class RequestLogger {
  #child: Logger | undefined

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level
  }

  set level(level: string) {
    this.real().level = level
  }

  isLevelEnabled(level: Level): boolean {
    return this.#child ? this.#child.isLevelEnabled(level) : this.enabled(level)
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args)
  }
  error(...args: unknown[]): void {
    this.log('error', args)
  }
  warn(...args: unknown[]): void {
    this.log('warn', args)
  }
  info(...args: unknown[]): void {
    this.log('info', args)
  }
  debug(...args: unknown[]): void {
    this.log('debug', args)
  }
  trace(...args: unknown[]): void {
    this.log('trace', args)
  }
  silent(): void {}

  child(bindings: Bindings = {}, options?: ChildLoggerOptions): Logger {
    return this.real().child(bindings, options)
  }

  private real(): Logger {
    this.#child ??= this.parent.child(this.bindings, this.options)
    return this.#child
  }

  private log(level: Level, args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.real()[level] as LogCall)(...args)
  }

  private enabled(level: Level): boolean {
    const { values } = this.parent.levels
    const threshold = this.options.level === undefined ? this.parent.levelVal : values[this.options.level]
    return (values[level] ?? 0) >= (threshold ?? 0)
  }
}
