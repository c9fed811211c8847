import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CompiledQuery, type Kysely, type KyselyPlugin, sql } from 'kysely'
import { systemClock } from '../src/domain/clock.ts'
import type { Mode, OperationKind } from '../src/domain/kinds.ts'
import { operationKindNames } from '../src/domain/kinds.ts'
import type { Operation, Side } from '../src/domain/operation.ts'
import type { Status } from '../src/domain/status.ts'
import { seedCopiesOfOperation } from '../src/store/bulk-seed.ts'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import type { AuditEntry } from '../src/store/repositories/audit-log.ts'
import type { SessionRow } from '../src/store/repositories/dashboard-sessions.ts'
import type { RepositoryScope } from '../src/store/repositories/executor.ts'
import type { InvitationRow, MemberRow } from '../src/store/repositories/members.ts'
import { operationSearchRepository } from '../src/store/repositories/operation-search.ts'
import type { Database } from '../src/store/schema.ts'
import { migrate, openStore, rawDatabase, type Store } from '../src/store/store.ts'
import { describeEachStore, type StoreTarget } from './support/stores.ts'

/**
 * The dashboard's repositories (members, invitations, recovery codes, attempts at secrets per
 * subject and per address, sessions, the audit log, and the search reads of operations) against
 * real databases, each method's contract as the design states it, and the plans of the search reads.
 */

const t0 = 1_780_000_000_000_000
const merchantA = 'mer_dash_a'
const merchantB = 'mer_dash_b'

async function openMigrated(target: StoreTarget): Promise<Store> {
  const store = openStore(parseDatabaseLocation(target.databaseUrl))
  await migrate(store)
  for (const id of [merchantA, merchantB]) await store.merchants.insert({ id, name: id, createdAtUs: t0 })
  return store
}

function member(id: string, overrides: Partial<MemberRow> = {}): MemberRow {
  return {
    id,
    merchantId: merchantA,
    email: `${id}@example.test`,
    name: id,
    role: 'viewer',
    passwordHash: null,
    totpSealed: null,
    totpLastStep: 0,
    timeZone: 'UTC',
    createdAtUs: t0,
    updatedAtUs: t0,
    removedAtUs: null,
    ...overrides,
  }
}

function invitation(id: string, overrides: Partial<InvitationRow> = {}): InvitationRow {
  return {
    id,
    merchantId: merchantA,
    email: `${id}@example.test`,
    role: 'support',
    tokenHash: `hash-${id}`,
    invitedBy: 'cli',
    createdAtUs: t0,
    expiresAtUs: t0 + 7 * 86_400_000_000,
    acceptedAtUs: null,
    revokedAtUs: null,
    memberId: null,
    ...overrides,
  }
}

describeEachStore('dashboard store: members and invitations', (target) => {
  let store: Store
  before(async () => {
    store = await openMigrated(target())
  })
  after(() => store.close())

  test('invitations: found by token hash, listed newest first, accepted once, revoked only while open', async () => {
    const { members } = store
    await members.insertInvitation(invitation('inv_old', { createdAtUs: t0 }))
    await members.insertInvitation(invitation('inv_new', { createdAtUs: t0 + 10 }))
    await members.insertInvitation(invitation('inv_other', { merchantId: merchantB }))
    assert.deepEqual(await members.findInvitationByTokenHash('hash-inv_old'), invitation('inv_old'))
    assert.equal(await members.findInvitationByTokenHash('hash-unknown'), undefined)
    assert.deepEqual(
      (await members.listInvitations(merchantA)).map((row) => row.id),
      ['inv_new', 'inv_old'],
    )
    await members.insertMember(member('mem_invited'))
    assert.equal(await members.markInvitationAccepted('inv_old', 'mem_invited', t0 + 20), true)
    assert.equal(await members.markInvitationAccepted('inv_old', 'mem_invited', t0 + 21), false, 'twice')
    const accepted = await members.findInvitationByTokenHash('hash-inv_old')
    assert.equal(accepted?.acceptedAtUs, t0 + 20)
    assert.equal(accepted?.memberId, 'mem_invited')
    assert.equal(await members.revokeInvitation(merchantA, 'inv_old', t0 + 30), false, 'accepted already')
    assert.equal(await members.revokeInvitation(merchantB, 'inv_new', t0 + 30), false, 'another merchant')
    assert.equal(await members.revokeInvitation(merchantA, 'inv_new', t0 + 30), true)
    assert.equal(await members.revokeInvitation(merchantA, 'inv_new', t0 + 31), false, 'revoked already')
    assert.equal(await members.markInvitationAccepted('inv_new', 'mem_invited', t0 + 40), false, 'revoked')
  })

  test('an expired invitation is not accepted', async () => {
    await store.members.insertInvitation(invitation('inv_expired', { expiresAtUs: t0 + 100 }))
    await store.members.insertMember(member('mem_late'))
    assert.equal(await store.members.markInvitationAccepted('inv_expired', 'mem_late', t0 + 100), false)
  })

  test('concurrent acceptances of one invitation: exactly one wins', async () => {
    await store.members.insertInvitation(invitation('inv_race'))
    await store.members.insertMember(member('mem_race'))
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        store.transaction((tx) => tx.members.markInvitationAccepted('inv_race', 'mem_race', t0 + index)),
      ),
    )
    assert.equal(results.filter(Boolean).length, 1)
  })

  test('one active member per email; a removed member’s email can be invited and used again', async () => {
    const { members } = store
    await members.insertMember(member('mem_one', { email: 'same@example.test', role: 'owner' }))
    await assert.rejects(members.insertMember(member('mem_two', { email: 'same@example.test' })))
    await assert.rejects(
      members.insertMember(member('mem_three', { email: 'same@example.test', merchantId: merchantB })),
      'unique across merchants: sign-in starts from the address',
    )
    assert.equal((await members.findActiveMemberByEmail('same@example.test'))?.id, 'mem_one')
    assert.equal(await members.countOwners(merchantA), 1)
    await members.updateMember('mem_one', { removedAtUs: t0 + 5 }, t0 + 5)
    assert.equal(await members.findActiveMemberByEmail('same@example.test'), undefined)
    assert.equal(await members.countOwners(merchantA), 0)
    await members.insertInvitation(invitation('inv_again', { email: 'same@example.test' }))
    await members.insertMember(member('mem_two', { email: 'same@example.test' }))
    assert.equal((await members.findActiveMemberByEmail('same@example.test'))?.id, 'mem_two')
    assert.equal((await members.findMember('mem_one'))?.removedAtUs, t0 + 5, 'the removed one is kept')
    const listed = (await members.listMembers(merchantA)).map((row) => row.email)
    assert.ok(listed.includes('same@example.test'))
    assert.deepEqual(listed, [...listed].sort(), 'by email')
    assert.equal(listed.filter((email) => email === 'same@example.test').length, 1, 'active only')
  })

  test('updateMember changes only the fields given; null clears one', async () => {
    const { members } = store
    await members.insertMember(member('mem_update', { passwordHash: 'old', totpSealed: 'sealed' }))
    await members.updateMember('mem_update', { name: 'New name', role: 'finance', totpSealed: null }, t0 + 50)
    const updated = await members.findMember('mem_update')
    assert.deepEqual(updated, {
      ...member('mem_update', { passwordHash: 'old' }),
      name: 'New name',
      role: 'finance',
      totpSealed: null,
      updatedAtUs: t0 + 50,
    })
  })

  test('claimTotpStep: a step at or below the last accepted is refused (a replayed code); racing claims of one step: one wins', async () => {
    const { members } = store
    await members.insertMember(member('mem_totp'))
    assert.equal(await members.claimTotpStep('mem_totp', 100), true)
    assert.equal(await members.claimTotpStep('mem_totp', 100), false, 'replayed')
    assert.equal(await members.claimTotpStep('mem_totp', 99), false, 'older')
    assert.equal(await members.claimTotpStep('mem_totp', 101), true)
    assert.equal((await members.findMember('mem_totp'))?.totpLastStep, 101)
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => store.transaction((tx) => tx.members.claimTotpStep('mem_totp', 102))),
    )
    assert.equal(racing.filter(Boolean).length, 1)
  })

  test('secret attempts: claimed up to the limit, a right secret gives its claim back, the failure that fills the count locks', async () => {
    const attempts = store.secretAttempts
    const lockUntil = t0 + 900_000_000
    for (let claim = 1; claim <= 5; claim++)
      assert.equal(await attempts.claim('member:mem_lock', 5, t0), true, `claim ${claim}`)
    assert.equal(await attempts.claim('member:mem_lock', 5, t0), false, 'five are counted')
    await attempts.giveBack('member:mem_lock')
    assert.equal(await attempts.claim('member:mem_lock', 5, t0), true, 'a right secret gave its claim back')
    assert.equal(await attempts.fail('member:mem_lock', 5, lockUntil), lockUntil, 'the fifth failure locks')
    assert.equal(
      await attempts.fail('member:mem_lock', 5, lockUntil + 9),
      lockUntil,
      'a running lock is kept',
    )
    assert.equal(await attempts.claim('member:mem_lock', 5, lockUntil - 1), false, 'locked')
    assert.equal(
      await attempts.claim('member:mem_lock', 5, lockUntil),
      true,
      'the lock is over: counted again',
    )
    assert.equal(await attempts.fail('member:mem_lock', 5, lockUntil + 1000), null, 'one failure, no lock')
    await attempts.clear('member:mem_lock')
    for (let claim = 1; claim <= 5; claim++)
      assert.equal(await attempts.claim('member:mem_lock', 5, lockUntil), true)
    assert.equal(await attempts.claim('member:mem_lock', 5, lockUntil), false)
    assert.equal(await attempts.claim('email:other', 5, t0), true, 'another subject')
  })

  test('secret attempts under concurrency: of 20 claims at once, exactly the limit are granted, on every connection', async () => {
    const racing = await Promise.all(
      Array.from({ length: 20 }, () =>
        store.transaction((tx) => tx.secretAttempts.claim('member:mem_race', 5, t0)),
      ),
    )
    assert.equal(racing.filter(Boolean).length, 5)
  })

  test('recovery codes: a used code is refused; replacing them forgets the old ones', async () => {
    const { members } = store
    await members.insertMember(member('mem_codes'))
    await members.replaceRecoveryCodes('mem_codes', ['c1', 'c2', 'c3'], t0)
    assert.equal(await members.countUnusedRecoveryCodes('mem_codes'), 3)
    assert.equal(await members.useRecoveryCode('mem_codes', 'c1', t0 + 1), true)
    assert.equal(await members.useRecoveryCode('mem_codes', 'c1', t0 + 2), false, 'used already')
    assert.equal(await members.useRecoveryCode('mem_codes', 'unknown', t0 + 2), false)
    assert.equal(await members.useRecoveryCode('mem_totp', 'c2', t0 + 2), false, 'another member’s')
    assert.equal(await members.countUnusedRecoveryCodes('mem_codes'), 2)
    await store.transaction((tx) => tx.members.replaceRecoveryCodes('mem_codes', ['d1', 'd2'], t0 + 3))
    assert.equal(await members.useRecoveryCode('mem_codes', 'c2', t0 + 4), false, 'replaced')
    assert.equal(await members.countUnusedRecoveryCodes('mem_codes'), 2)
    assert.equal(await members.useRecoveryCode('mem_codes', 'd2', t0 + 4), true)
  })

  test('address attempts: claimed up to the limit per window, a new window starts again, an older one counts in the current', async () => {
    const attempts = store.secretAttempts
    const [w1, w2] = [t0, t0 + 60_000_000]
    for (let claim = 1; claim <= 3; claim++)
      assert.equal(await attempts.claimForAddress('203.0.113.9', w1, 3), true)
    assert.equal(await attempts.claimForAddress('203.0.113.9', w1, 3), false, 'three are counted')
    await attempts.giveBackForAddress('203.0.113.9', w1)
    assert.equal(await attempts.claimForAddress('203.0.113.9', w1, 3), true, 'given back')
    assert.equal(await attempts.claimForAddress('203.0.113.9', w2, 3), true, 'a new window')
    await attempts.giveBackForAddress('203.0.113.9', w1)
    assert.equal(
      await attempts.claimForAddress('203.0.113.9', w1, 3),
      true,
      'a late instance counts in the current window',
    )
    assert.equal(await attempts.claimForAddress('203.0.113.9', w2, 3), true)
    assert.equal(
      await attempts.claimForAddress('203.0.113.9', w2, 3),
      false,
      'a give-back of an old window gave nothing',
    )
    assert.equal(await attempts.claimForAddress('198.51.100.1', w2, 3), true, 'another address')
    const racing = await Promise.all(
      Array.from({ length: 12 }, () =>
        store.transaction((tx) => tx.secretAttempts.claimForAddress('192.0.2.7', w1, 8)),
      ),
    )
    assert.equal(racing.filter(Boolean).length, 8)
  })
})

function session(id: string, memberId: string, createdAtUs: number): SessionRow {
  return {
    id,
    tokenHash: `token-${id}`,
    memberId,
    merchantId: merchantA,
    stage: 'second-factor',
    createdAtUs,
    lastSeenAtUs: createdAtUs,
    absoluteEndsAtUs: createdAtUs + 12 * 3_600_000_000,
    endedAtUs: null,
    endedReason: null,
    address: '203.0.113.1',
    userAgent: 'test',
  }
}

describeEachStore('dashboard store: sessions', (target) => {
  let store: Store
  before(async () => {
    store = await openMigrated(target())
    await store.members.insertMember(member('mem_s1'))
    await store.members.insertMember(member('mem_s2'))
  })
  after(() => store.close())

  test('a live session is found with its member; touch and stage change it; once ended it is not found', async () => {
    const { dashboardSessions: sessions } = store
    await sessions.insertSession(session('ses_a', 'mem_s1', t0))
    const found = await sessions.findLiveSession('token-ses_a')
    assert.deepEqual(found?.session, session('ses_a', 'mem_s1', t0))
    assert.equal(found?.member.id, 'mem_s1')
    await sessions.touchSession('ses_a', t0 + 100)
    await sessions.setStage('ses_a', 'signed-in')
    const touched = await sessions.findLiveSession('token-ses_a')
    assert.equal(touched?.session.lastSeenAtUs, t0 + 100)
    assert.equal(touched?.session.stage, 'signed-in')
    assert.equal(await sessions.endSession('ses_a', 'signed-out', t0 + 200), true)
    assert.equal(await sessions.endSession('ses_a', 'signed-out', t0 + 201), false, 'ended already')
    assert.equal(await sessions.findLiveSession('token-ses_a'), undefined)
    assert.equal(await sessions.findLiveSession('token-unknown'), undefined)
  })

  test('ending a member’s sessions spares the one named; live sessions are listed newest first', async () => {
    const { dashboardSessions: sessions } = store
    await sessions.insertSession(session('ses_b1', 'mem_s2', t0 + 1))
    await sessions.insertSession(session('ses_b2', 'mem_s2', t0 + 2))
    await sessions.insertSession(session('ses_b3', 'mem_s2', t0 + 3))
    await sessions.insertSession(session('ses_c', 'mem_s1', t0 + 4))
    const live = async (memberId?: string) =>
      (await sessions.listLiveSessions(merchantA, memberId)).map((row) => row.id)
    assert.deepEqual(await live(), ['ses_c', 'ses_b3', 'ses_b2', 'ses_b1'])
    assert.deepEqual(await live('mem_s2'), ['ses_b3', 'ses_b2', 'ses_b1'])
    assert.deepEqual(await sessions.listLiveSessions(merchantB), [])
    assert.equal(await sessions.endSessionsOfMember('mem_s2', 'password-changed', t0 + 10, 'ses_b2'), 2)
    assert.deepEqual(await live('mem_s2'), ['ses_b2'])
    assert.equal((await sessions.findLiveSession('token-ses_b1'))?.session, undefined)
    assert.equal(await sessions.endSessionsOfMember('mem_s2', 'removed', t0 + 11), 1)
    assert.deepEqual(await live(), ['ses_c'])
  })

  test('a removed member has no live session', async () => {
    await store.dashboardSessions.insertSession(session('ses_removed', 'mem_s1', t0 + 5))
    await store.members.updateMember('mem_s1', { removedAtUs: t0 + 6 }, t0 + 6)
    assert.equal(await store.dashboardSessions.findLiveSession('token-ses_removed'), undefined)
  })
})

function audit(id: string, atUs: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    merchantId: merchantA,
    mode: 'live',
    actorKind: 'member',
    actorId: 'mem_x',
    actorLabel: 'x@example.test',
    action: 'refund.created',
    target: 'op-token',
    before: null,
    after: '{"amount":100}',
    address: '203.0.113.1',
    atUs,
    ...overrides,
  }
}

describeEachStore('dashboard store: audit log', (target) => {
  let store: Store
  before(async () => {
    store = await openMigrated(target())
    const entries = [
      audit('aud_1', t0 + 1),
      audit('aud_2', t0 + 2, {
        actorKind: 'cli',
        actorId: null,
        actorLabel: 'cli',
        action: 'member.invited',
        mode: null,
      }),
      audit('aud_3a', t0 + 3),
      audit('aud_3b', t0 + 3, { action: 'callback.resent', before: '{}' }),
      audit('aud_4', t0 + 4, { actorKind: 'api', actorId: null, actorLabel: 'pk_live_ab', address: null }),
      audit('aud_b', t0 + 5, { merchantId: merchantB }),
    ]
    for (const entry of entries) await store.auditLog.append(entry)
  })
  after(() => store.close())

  const ids = (entries: AuditEntry[]) => entries.map((entry) => entry.id)

  test('newest first, ties by id; pages by keyset join up exactly', async () => {
    const all = await store.auditLog.list(merchantA, { limit: 100 })
    assert.deepEqual(ids(all), ['aud_4', 'aud_3b', 'aud_3a', 'aud_2', 'aud_1'])
    assert.deepEqual(all[1], audit('aud_3b', t0 + 3, { action: 'callback.resent', before: '{}' }))
    const pages: string[] = []
    let before: { atUs: number; id: string } | undefined
    for (;;) {
      const page = await store.auditLog.list(merchantA, { limit: 2, ...(before ? { before } : {}) })
      pages.push(...ids(page))
      const last = page.at(-1)
      if (page.length < 2 || !last) break
      before = { atUs: last.atUs, id: last.id }
    }
    assert.deepEqual(pages, ids(all))
  })

  test('filters: action, actor (id or label), time range; another merchant’s entries are not seen', async () => {
    const list = async (filter: Omit<Parameters<Store['auditLog']['list']>[1], 'limit'>) =>
      ids(await store.auditLog.list(merchantA, { ...filter, limit: 100 }))
    assert.deepEqual(await list({ action: 'refund.created' }), ['aud_4', 'aud_3a', 'aud_1'])
    assert.deepEqual(await list({ actor: 'cli' }), ['aud_2'])
    assert.deepEqual(await list({ actor: 'mem_x' }), ['aud_3b', 'aud_3a', 'aud_1'])
    assert.deepEqual(await list({ fromUs: t0 + 2, toUs: t0 + 4 }), ['aud_3b', 'aud_3a', 'aud_2'])
    assert.deepEqual(ids(await store.auditLog.list(merchantB, { limit: 10 })), ['aud_b'])
  })
})

let nextPosition = 1

function side(role: Side['role'], phoneNumber: string, channel: string, country: string): Side {
  return {
    role,
    kind: role === 'to' ? 'disbursement' : 'collect',
    channel,
    country,
    currency: 'XOF',
    amountMinor: 1000,
    feesMinor: 0,
    transactionAmountMinor: 1000,
    cashAmountMinor: 1000,
    percentageMilli: 0,
    additionalFeeMinor: 0,
    supportedByAccount: true,
    customer: { fullName: 'Test Customer', phoneNumber, email: 'c@example.test' },
    status: 'pending',
  }
}

interface OperationSpec {
  token: string
  kind?: OperationKind
  merchantId?: string
  mode?: Mode
  status?: Status
  reference?: string
  phone: string
  toPhone?: string
  channel?: string
  toChannel?: string
  operatorReference?: string
  atUs: number
}

function operation(spec: OperationSpec): Operation {
  const kind = spec.kind ?? (spec.toPhone ? 'transfer' : 'collect')
  const first = side(spec.toPhone ? 'from' : 'main', spec.phone, spec.channel ?? 'orange-money', 'CI')
  if (spec.operatorReference) first.operatorReference = spec.operatorReference
  const sides = spec.toPhone ? [first, side('to', spec.toPhone, spec.toChannel ?? 'wave', 'SN')] : [first]
  return {
    id: 0,
    token: spec.token,
    merchantId: spec.merchantId ?? merchantA,
    mode: spec.mode ?? 'sandbox',
    kind,
    position: nextPosition++,
    status: spec.status ?? 'pending',
    merchantReference: spec.reference ?? `ref-${spec.token}`,
    requestHash: 'hash',
    currency: 'XOF',
    sides,
    urls: { callbackUrl: null },
    redirectUrl: null,
    failure: null,
    initiatedAtUs: spec.atUs,
    completedAtUs: null,
    updatedAtUs: spec.atUs,
  }
}

const searchFixtures: OperationSpec[] = [
  { token: 'op-1', phone: '+2250700000001', atUs: t0 + 1, status: 'succeeded' },
  { token: 'op-2', phone: '+2250700000002', toPhone: '+221770000001', atUs: t0 + 2, status: 'failed' },
  { token: 'op-3', phone: '+221770000001', atUs: t0 + 3, channel: 'mtn-momo', reference: 'shared-ref' },
  { token: 'op-4', kind: 'disbursement', phone: '+2250700000001', atUs: t0 + 4, reference: 'shared-ref' },
  {
    token: 'op-5',
    phone: '+2250700000003',
    toPhone: '+2250700000001',
    atUs: t0 + 4,
    operatorReference: 'opref-5',
  },
  { token: 'op-6', phone: '+2250700000004', atUs: t0 + 6, status: 'succeeded' },
  { token: 'op-live', mode: 'live', phone: '+2250700000001', atUs: t0 + 7, reference: 'shared-ref' },
  {
    token: 'op-other',
    merchantId: merchantB,
    phone: '+2250700000001',
    atUs: t0 + 8,
    reference: 'shared-ref',
  },
]

describeEachStore('dashboard store: operation search', (target) => {
  let store: Store
  before(async () => {
    store = await openMigrated(target())
    await store.transaction(async (tx) => {
      for (const spec of searchFixtures) await tx.operations.insertIfNew(operation(spec))
    })
  })
  after(() => store.close())

  const tokens = (operations: Operation[]) => operations.map((item) => item.token)

  test('by phone: both the paying and the receiving side, newest first, this merchant and mode only', async () => {
    const search = store.operationSearch
    assert.deepEqual(tokens(await search.findByPhone(merchantA, 'sandbox', '+2250700000001', 10)), [
      'op-5',
      'op-4',
      'op-1',
    ])
    assert.deepEqual(tokens(await search.findByPhone(merchantA, 'sandbox', '+221770000001', 10)), [
      'op-3',
      'op-2',
    ])
    assert.deepEqual(tokens(await search.findByPhone(merchantA, 'sandbox', '+2250700000001', 2)), [
      'op-5',
      'op-4',
    ])
    assert.deepEqual(tokens(await search.findByPhone(merchantA, 'live', '+2250700000001', 10)), ['op-live'])
    assert.deepEqual(await search.findByPhone(merchantA, 'sandbox', '+2250799999999', 10), [])
  })

  test('by reference: token, merchantReference of any kind, operator reference; the same record as operations.findByToken', async () => {
    const search = store.operationSearch
    const [byToken] = await search.findByReference(merchantA, 'sandbox', 'op-2', 10)
    assert.deepEqual(byToken, await store.operations.findByToken(merchantA, 'sandbox', 'op-2'))
    assert.deepEqual(tokens(await search.findByReference(merchantA, 'sandbox', 'shared-ref', 10)), [
      'op-4',
      'op-3',
    ])
    assert.deepEqual(tokens(await search.findByReference(merchantA, 'sandbox', 'opref-5', 10)), ['op-5'])
    assert.deepEqual(tokens(await search.findByReference(merchantA, 'live', 'shared-ref', 10)), ['op-live'])
    assert.deepEqual(
      await search.findByReference(merchantA, 'sandbox', 'op-other', 10),
      [],
      'another merchant’s token',
    )
    assert.deepEqual(await search.findByReference(merchantB, 'sandbox', 'opref-5', 10), [])
  })

  test('list: every kind newest first, keyset pages join up, filters narrow it', async () => {
    const search = store.operationSearch
    const all = ['op-6', 'op-5', 'op-4', 'op-3', 'op-2', 'op-1']
    const first = await search.list(merchantA, 'sandbox', { limit: 100 })
    assert.deepEqual(tokens(first.items), all)
    assert.equal(first.next, undefined)
    const walked: string[] = []
    let after: { initiatedAtUs: number; id: number } | undefined
    do {
      const page = await search.list(merchantA, 'sandbox', { limit: 2, ...(after ? { after } : {}) })
      walked.push(...tokens(page.items))
      after = page.next
    } while (after)
    assert.deepEqual(walked, all, 'op-4 and op-5 share a time: the id orders them')
    const list = async (filter: Omit<Parameters<Store['operationSearch']['list']>[2], 'limit'>) =>
      tokens((await search.list(merchantA, 'sandbox', { ...filter, limit: 100 })).items)
    assert.deepEqual(await list({ kinds: ['transfer'] }), ['op-5', 'op-2'])
    assert.deepEqual(await list({ kinds: ['transfer', 'disbursement'] }), ['op-5', 'op-4', 'op-2'])
    assert.deepEqual(await list({ statuses: ['succeeded', 'failed'] }), ['op-6', 'op-2', 'op-1'])
    assert.deepEqual(await list({ channel: 'wave' }), ['op-5', 'op-2'], 'the receiving side’s channel')
    assert.deepEqual(await list({ channel: 'mtn-momo' }), ['op-3'])
    assert.deepEqual(await list({ country: 'SN' }), ['op-5', 'op-2'])
    assert.deepEqual(await list({ fromUs: t0 + 2, toUs: t0 + 4 }), ['op-3', 'op-2'])
    assert.deepEqual(await list({ kinds: [], statuses: [] }), all, 'empty lists filter nothing')
  })

  test('countsSince: operations by kind and status, and the succeeded ledger entries by currency', async () => {
    const db = rawDatabase(store)
    const op1 = await store.operations.findByToken(merchantA, 'sandbox', 'op-1')
    const entry = (sequence: number, amountMinor: number, status: string, createdAtUs: number) => ({
      merchant_id: merchantA,
      mode: 'sandbox',
      sequence,
      reference: `entry-${sequence}`,
      operation_id: op1!.id,
      operation_kind: 'collect',
      type: 'cash-in',
      currency: 'XOF',
      amount_minor: amountMinor,
      status,
      created_at_us: createdAtUs,
      updated_at_us: createdAtUs,
      balance_after_minor: null,
    })
    await db
      .insertInto('ledger_entries')
      .values([
        entry(1, 500, 'succeeded', t0 + 1),
        entry(2, 700, 'succeeded', t0 + 3),
        entry(3, 900, 'pending', t0 + 3),
        entry(4, 50, 'succeeded', t0),
      ])
      .execute()
    const counts = await store.operationSearch.countsSince(merchantA, 'sandbox', t0 + 1)
    assert.deepEqual(counts.byStatus, [
      { kind: 'collect', status: 'pending', count: 1 },
      { kind: 'collect', status: 'succeeded', count: 2 },
      { kind: 'disbursement', status: 'pending', count: 1 },
      { kind: 'transfer', status: 'failed', count: 1 },
      { kind: 'transfer', status: 'pending', count: 1 },
    ])
    assert.deepEqual(counts.posted, [
      { kind: 'collect', type: 'cash-in', currency: 'XOF', entries: 2, amountMinor: 1200 },
    ])
  })
})

/** Every statement a repository built on `db` runs, compiled, so its plan can be asked for. */
function recordingScope(db: Kysely<Database>): { scope: RepositoryScope; statements: CompiledQuery[] } {
  const statements: CompiledQuery[] = []
  const recorder: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      statements.push(db.getExecutor().compileQuery(node, queryId))
      return node
    },
    transformResult: async ({ result }) => result,
  }
  return { scope: { db: db.withPlugin(recorder), clock: systemClock } as RepositoryScope, statements }
}

async function planOf(store: Store, statement: CompiledQuery): Promise<string> {
  const prefix = store.name === 'sqlite' ? 'explain query plan ' : 'explain '
  const result = await rawDatabase(store).executeQuery(
    CompiledQuery.raw(prefix + statement.sql, [...statement.parameters]),
  )
  return result.rows.map((row: any) => row.detail ?? row['QUERY PLAN']).join('\n')
}

/** A full read of operations: SQLite's SCAN without an index, PostgreSQL's Seq Scan. */
const fullScan = /SCAN operations(?! USING)|Seq Scan on operations/

describeEachStore('dashboard store: the search reads use indexes', (target) => {
  let store: Store
  before(async () => {
    store = await openMigrated(target())
    await store.transaction(async (tx) => {
      for (const spec of searchFixtures) await tx.operations.insertIfNew(operation(spec))
    })
    // Thousands of the merchant's operations, so the planner weighs an index against a scan.
    await rawDatabase(store)
      .insertInto('counters')
      .values({ merchant_id: merchantA, mode: 'sandbox', name: 'collect', value: nextPosition })
      .execute()
    await seedCopiesOfOperation(store, 'op-1', 4000, 0)
    if (store.name === 'sqlite') await sql`analyze`.execute(rawDatabase(store))
  })
  after(() => store.close())

  test('phone search reads operations_by_phone and operations_by_to_phone in order, sorting nothing', async () => {
    const { scope, statements } = recordingScope(rawDatabase(store))
    const found = await operationSearchRepository(scope).findByPhone(
      merchantA,
      'sandbox',
      '+221770000001',
      20,
    )
    assert.deepEqual(
      found.map((item) => item.token),
      ['op-3', 'op-2'],
    )
    const plans = await Promise.all(statements.map((statement) => planOf(store, statement)))
    assert.match(plans.join('\n'), /operations_by_phone/)
    assert.match(plans.join('\n'), /operations_by_to_phone/)
    for (const plan of plans) {
      assert.doesNotMatch(plan, fullScan, plan)
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort/, `read in order, not sorted: ${plan}`)
    }
  })

  test('list pages read operations_by_merchant_date in order, with a cursor too; filtered pages read an index', async () => {
    const { scope, statements } = recordingScope(rawDatabase(store))
    const search = operationSearchRepository(scope)
    const first = await search.list(merchantA, 'sandbox', { limit: 50 })
    assert.ok(first.next, 'thousands of operations: a next page')
    await search.list(merchantA, 'sandbox', { limit: 50, after: first.next })
    for (const statement of statements) {
      const plan = await planOf(store, statement)
      assert.match(plan, /operations_by_merchant_date/, plan)
      assert.doesNotMatch(plan, fullScan, plan)
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort/, `read in order, not sorted: ${plan}`)
    }
    statements.length = 0
    await search.list(merchantA, 'sandbox', {
      limit: 50,
      kinds: ['collect', 'transfer'],
      statuses: ['failed'],
    })
    await search.list(merchantA, 'sandbox', { limit: 50, statuses: ['succeeded'], channel: 'orange-money' })
    await search.list(merchantA, 'sandbox', { limit: 50, fromUs: t0 + 2, toUs: t0 + 5, after: first.next })
    // A probe per (kind, status) asked: 2 kinds x 1 status, then every kind x 1 status; then one.
    assert.equal(statements.length, 2 + operationKindNames.length + 1)
    for (const [index, statement] of statements.entries()) {
      const plan = await planOf(store, statement)
      assert.doesNotMatch(plan, fullScan, plan)
      if (index < statements.length - 1)
        assert.doesNotMatch(plan, /TEMP B-TREE|Sort/, `read in order: ${plan}`)
    }
  })

  test('reference search probes indexes only', async () => {
    const { scope, statements } = recordingScope(rawDatabase(store))
    await operationSearchRepository(scope).findByReference(merchantA, 'sandbox', 'shared-ref', 20)
    assert.equal(statements.length, 3, 'a merchantReference, a token and an operator reference')
    for (const statement of statements) {
      const plan = await planOf(store, statement)
      assert.doesNotMatch(plan, fullScan, plan)
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort/, `nothing sorted: ${plan}`)
    }
  })
})
