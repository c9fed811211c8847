import pg from 'pg'

/** The texts of the statements this process sends to PostgreSQL, recorded until `stop`. */
export interface SentStatements {
  readonly texts: string[]
  stop(): void
}

/**
 * Records every statement node-postgres sends, from any pool or client of this process: how a test
 * counts round trips and reads what the driver combined. pg's own `Client.query`, wrapped, not ours.
 */
export function recordPostgresStatements(): SentStatements {
  const texts: string[] = []
  const query = pg.Client.prototype.query
  ;(pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
    texts.push(typeof args[0] === 'string' ? args[0] : args[0].text)
    return (query as any).apply(this, args)
  }
  return {
    texts,
    stop: () => {
      pg.Client.prototype.query = query
    },
  }
}
