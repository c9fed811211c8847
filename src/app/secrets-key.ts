import { type Config, ConfigError } from '../config.ts'
import type { DatabaseLocation } from '../store/database-location.ts'
import type { Store } from '../store/store.ts'
import { createSecretBox, keySourceName, opens, type SecretBox, wouldCreateKey } from './credentials.ts'

/**
 * The box over the configured key, once it is known to open the webhook secrets the store already
 * holds. Another key (a command run from another folder finds another ./data/secrets.key) would
 * seal new secrets no instance can open, and every callback would fail to sign: the start stops
 * instead, naming the key it was given. With no secret stored yet, any key is the first.
 */
export async function openSecretBox(config: Config, store: Store): Promise<SecretBox> {
  const { secretsKey, database } = config
  const samples = await store.webhookSecrets.sealedSamples()
  const fix = `set SECRETS_KEY_FILE to the key file the service uses (or SECRETS_KEY to its value)`
  if (samples.length > 0 && wouldCreateKey(secretsKey))
    throw new ConfigError([
      `the secrets key ${keySourceName(secretsKey)} does not exist, but ${databaseName(database)} holds webhook secrets sealed with a key: ${fix}; a new key would not open them`,
    ])
  const box = createSecretBox(secretsKey)
  if (samples.some((sealed) => !opens(box, sealed)))
    throw new ConfigError([
      `the secrets key ${keySourceName(secretsKey)} does not open the webhook secrets stored in ${databaseName(database)}: another key sealed them; ${fix}`,
    ])
  return box
}

/** The database as a message names it: never a URL's password. */
function databaseName(database: DatabaseLocation): string {
  if (database.kind === 'sqlite') return `the SQLite database ${database.path}`
  const url = new URL(database.url)
  return `the PostgreSQL database ${url.host}${url.pathname}`
}
