import assert from 'node:assert/strict'
import { resolve } from 'node:path'
import { describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.ts'

const secretsKey = '0f'.repeat(32)

/** Runs loadConfig and returns the ConfigError it must throw. */
function configErrorFor(environment: Record<string, string>): ConfigError {
  try {
    loadConfig(environment)
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`)
    return error
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(environment)}`)
}

describe('loadConfig: defaults', () => {
  test('an empty environment gives the documented defaults', () => {
    const config = loadConfig({})
    assert.equal(config.port, 3000)
    assert.equal(config.host, '127.0.0.1', 'HOST: only this machine, unless HOST=0.0.0.0 says otherwise')
    assert.deepEqual(config.database, { kind: 'sqlite', path: resolve('./data/sika.db') })
    assert.equal(config.publicBaseUrl, 'http://localhost:3000')
    assert.equal(config.logLevel, 'info')
    assert.equal(
      config.operationTtlMs,
      15 * 60_000,
      'OPERATION_TTL defaults to 15 minutes (CONTRACT, Statuses)',
    )
    assert.equal(config.sandboxDelayMs, 3000, 'SANDBOX_DELAY_MS defaults to 3000 (CONTRACT, Sandbox)')
    assert.equal(config.rateLimitPerSecond, 100, 'RATE_LIMIT_PER_SECOND defaults to 100 (CONTRACT, Limits)')
    assert.equal(config.redisUrl, undefined)
    assert.equal(
      config.callbackConcurrency,
      64,
      'CALLBACK_CONCURRENCY defaults to 64: 16 to one endpoint (README)',
    )
    assert.equal(config.requestTimePerTurnMs, 4, 'REQUEST_TIME_PER_TURN_MS defaults to 4 on SQLite (README)')
    assert.equal(
      config.databaseStatementTimeoutMs,
      2000,
      'DATABASE_STATEMENT_TIMEOUT defaults to 2s (README)',
    )
    assert.equal(config.deliveryThread, false, 'DELIVERY_THREAD defaults to off (README)')
  })

  test('DELIVERY_THREAD=on for a SQLite file or PostgreSQL; a database in memory cannot be opened by the thread', () => {
    const postgres = { DATABASE_URL: 'postgres://127.0.0.1/sika', SECRETS_KEY: secretsKey }
    assert.equal(loadConfig({ ...postgres, DELIVERY_THREAD: 'on' }).deliveryThread, true)
    assert.equal(loadConfig({ DELIVERY_THREAD: 'on' }).deliveryThread, true)
    const error = configErrorFor({ DATABASE_URL: ':memory:', DELIVERY_THREAD: 'on' })
    assert.match(error.message, /DELIVERY_THREAD=on needs a database the thread can open too/)
  })

  test('REQUEST_TIME_PER_TURN_MS defaults to 0 on PostgreSQL, where every query yields the loop already', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/sika', SECRETS_KEY: secretsKey })
    assert.equal(config.requestTimePerTurnMs, 0)
    assert.equal(
      loadConfig({
        DATABASE_URL: 'postgres://127.0.0.1/sika',
        REQUEST_TIME_PER_TURN_MS: '3',
        SECRETS_KEY: secretsKey,
      }).requestTimePerTurnMs,
      3,
    )
  })

  test('PUBLIC_BASE_URL defaults to http://localhost on the configured PORT', () => {
    assert.equal(loadConfig({ PORT: '8080' }).publicBaseUrl, 'http://localhost:8080')
  })

  test('the configuration is frozen: read once, never changed afterwards', () => {
    assert.ok(Object.isFrozen(loadConfig({})))
  })

  test('a blank variable counts as unset', () => {
    const config = loadConfig({ PORT: '  ', LOG_LEVEL: '' })
    assert.equal(config.port, 3000)
    assert.equal(config.logLevel, 'info')
  })
})

describe('loadConfig: renamed variables keep their older names as aliases (README)', () => {
  const table = [
    {
      setting: 'databaseStatementTimeoutMs',
      name: 'DATABASE_STATEMENT_TIMEOUT',
      olderName: 'DATABASE_TIMEOUT',
      value: '5s',
      expected: 5000,
      other: '7000',
      otherExpected: 7000,
    },
    {
      setting: 'requestTimePerTurnMs',
      name: 'REQUEST_TIME_PER_TURN_MS',
      olderName: 'TURN_BUDGET_MS',
      value: '7',
      expected: 7,
      other: '2',
      otherExpected: 2,
    },
  ] as const
  for (const { setting, name, olderName, value, expected, other, otherExpected } of table) {
    test(`${name}, or ${olderName} when it is unset; ${name} wins when both are set`, () => {
      assert.equal(loadConfig({ SECRETS_KEY: secretsKey, [name]: value })[setting], expected)
      assert.equal(loadConfig({ SECRETS_KEY: secretsKey, [olderName]: value })[setting], expected)
      assert.equal(
        loadConfig({ SECRETS_KEY: secretsKey, [name]: value, [olderName]: other })[setting],
        expected,
      )
      assert.equal(
        loadConfig({ SECRETS_KEY: secretsKey, [name]: '', [olderName]: other })[setting],
        otherExpected,
        'a blank variable is unset',
      )
      // A bad value under the older name is reported under that name; under both, only the new one is read.
      assert.match(
        configErrorFor({ SECRETS_KEY: secretsKey, [olderName]: 'x' }).problems[0]!,
        new RegExp(`^${olderName} `),
      )
      assert.match(
        configErrorFor({ SECRETS_KEY: secretsKey, [name]: 'x', [olderName]: value }).problems[0]!,
        new RegExp(`^${name} `),
      )
    })
  }
})

describe('loadConfig: explicit values', () => {
  test('HOST=0.0.0.0 listens on every interface, as a container needs', () => {
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0')
  })

  test('a SQLite path is resolved to an absolute path', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'var/custom.db' }).database, {
      kind: 'sqlite',
      path: resolve('var/custom.db'),
    })
  })

  test('a SQLite file may be named by a file: URL, absolute or relative to the working folder', () => {
    for (const [value, path] of [
      ['file:///srv/sika/data.db', '/srv/sika/data.db'],
      ['file:var/custom.db', resolve('var/custom.db')],
      ['FILE:var/custom.db', resolve('var/custom.db')],
      ['file:///srv/with%20space.db', '/srv/with space.db'],
      ['file:with%20space.db', resolve('with space.db')],
      ['file::memory:', ':memory:'],
    ])
      assert.deepEqual(loadConfig({ DATABASE_URL: value }).database, { kind: 'sqlite', path }, value)
  })

  for (const url of [
    'postgres://sika@127.0.0.1:5432/sika',
    'postgresql://sika@127.0.0.1:5432/sika',
    'POSTGRES://sika@127.0.0.1/sika',
  ]) {
    test(`${url.split(':')[0]}:// selects PostgreSQL, keeping the URL as given`, () => {
      assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, { kind: 'postgres', url })
    })
  }

  test('PUBLIC_BASE_URL loses its trailing slashes, so list URLs never hold "//"', () => {
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://api.sika.example/' }).publicBaseUrl,
      'https://api.sika.example',
    )
  })

  test('OPERATION_TTL takes milliseconds or a number with a unit', () => {
    const table: [string, number][] = [
      ['900000', 900_000],
      ['90s', 90_000],
      ['15m', 900_000],
      ['2h', 7_200_000],
    ]
    for (const [raw, expectedMs] of table) {
      assert.equal(loadConfig({ OPERATION_TTL: raw }).operationTtlMs, expectedMs, raw)
    }
  })

  test('SECRETS_KEY is 32 bytes, as 64 hex digits or as base64', () => {
    const key = Buffer.alloc(32, 7)
    for (const raw of [key.toString('hex'), key.toString('base64')]) {
      assert.deepEqual(loadConfig({ SECRETS_KEY: raw }).secretsKey, { kind: 'value', value: key })
    }
  })
})

describe('loadConfig: each bad value is a ConfigError naming its variable', () => {
  const table: { variable: string; value: string }[] = [
    { variable: 'PORT', value: 'abc' },
    { variable: 'PORT', value: '70000' },
    { variable: 'PORT', value: '-1' },
    { variable: 'LOG_LEVEL', value: 'loud' },
    { variable: 'PUBLIC_BASE_URL', value: 'ftp://x' },
    { variable: 'PUBLIC_BASE_URL', value: 'not a url' },
    { variable: 'OPERATION_TTL', value: 'soon' },
    { variable: 'OPERATION_TTL', value: '10ms' },
    { variable: 'SECRETS_KEY', value: 'short' },
    { variable: 'SANDBOX_DELAY_MS', value: '1.5' },
    { variable: 'RATE_LIMIT_PER_SECOND', value: 'many' },
    { variable: 'TURN_BUDGET_MS', value: '-1' },
    { variable: 'REQUEST_TIME_PER_TURN_MS', value: '-1' },
    { variable: 'DATABASE_STATEMENT_TIMEOUT', value: '500ms' },
    { variable: 'DATABASE_TIMEOUT', value: 'soon' },
    { variable: 'DELIVERY_THREAD', value: 'yes' },
    { variable: 'REDIS_URL', value: 'http://127.0.0.1:6379' },
    { variable: 'DATABASE_URL', value: 'file://elsewhere/sika.db' },
    { variable: 'DATABASE_URL', value: 'file:data/sika.db?mode=ro' },
    { variable: 'DATABASE_URL', value: 'file:bad%zz.db' },
    { variable: 'TRUST_PROXY', value: 'proxy.internal' },
    { variable: 'TRUST_PROXY', value: '10.0.0.0/33' },
    { variable: 'TRUST_PROXY', value: '10.0.0.5,,fd00::/8' },
    { variable: 'METRICS_PORT', value: '70000' },
    { variable: 'SPEED_MECHANISMS_OFF', value: 'group-commit,caches' },
  ]
  for (const { variable, value } of table) {
    test(`${variable}=${value}`, () => {
      const error = configErrorFor({ SECRETS_KEY: secretsKey, [variable]: value })
      assert.equal(error.problems.length, 1, error.message)
      assert.match(error.problems[0]!, new RegExp(`^${variable} `))
      assert.ok(error.message.includes(variable), error.message)
    })
  }
})

test('loadConfig reports every bad value at once, so the operator fixes them in one go', () => {
  const error = configErrorFor({
    PORT: 'abc',
    LOG_LEVEL: 'loud',
    PUBLIC_BASE_URL: 'ftp://x',
    OPERATION_TTL: 'soon',
    SECRETS_KEY: 'short',
  })
  const named = ['PORT', 'LOG_LEVEL', 'PUBLIC_BASE_URL', 'OPERATION_TTL', 'SECRETS_KEY']
  assert.equal(error.problems.length, named.length, error.message)
  for (const variable of named) {
    assert.ok(
      error.problems.some((problem) => problem.startsWith(`${variable} `)),
      `${variable} is reported in:\n${error.message}`,
    )
  }
})

test('TRUST_PROXY: addresses and CIDRs of either family, separated by commas; none by default', () => {
  assert.deepEqual(loadConfig({ SECRETS_KEY: secretsKey }).trustProxy, [])
  assert.deepEqual(
    loadConfig({ SECRETS_KEY: secretsKey, TRUST_PROXY: ' 10.0.0.5, 10.1.0.0/16 ,fd00::/8,::1' }).trustProxy,
    ['10.0.0.5', '10.1.0.0/16', 'fd00::/8', '::1'],
  )
})

test('/metrics listens on 127.0.0.1:9464 unless METRICS_HOST and METRICS_PORT say otherwise', () => {
  const defaults = loadConfig({ SECRETS_KEY: secretsKey })
  assert.deepEqual(
    [defaults.metricsHost, defaults.metricsPort, defaults.metricsPortGiven],
    ['127.0.0.1', 9464, false],
  )
  const chosen = loadConfig({ SECRETS_KEY: secretsKey, METRICS_HOST: '0.0.0.0', METRICS_PORT: '0' })
  assert.deepEqual([chosen.metricsHost, chosen.metricsPort, chosen.metricsPortGiven], ['0.0.0.0', 0, true])
  const sameAsTheDefault = loadConfig({ SECRETS_KEY: secretsKey, METRICS_PORT: '9464' })
  assert.equal(
    sameAsTheDefault.metricsPortGiven,
    true,
    'a port given is one the operator chose, whatever it is',
  )
})

test('SPEED_MECHANISMS_OFF: mechanisms by name, separated by commas; none by default', () => {
  assert.deepEqual([...loadConfig({ SECRETS_KEY: secretsKey }).speedMechanismsOff], [])
  assert.deepEqual(
    [
      ...loadConfig({ SECRETS_KEY: secretsKey, SPEED_MECHANISMS_OFF: 'wal-sync, read-batches' })
        .speedMechanismsOff,
    ],
    ['wal-sync', 'read-batches'],
  )
})
