import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * Attempts at a secret (a password, a TOTP or recovery code) counted in one table whatever is
 * tried, keyed by a subject (`member:<id>`, `email:<hash>`): every form that checks a member's
 * secret counts in the same row, and a sign-in of another kind of account (the platform's) will
 * count in rows of its own without a table of its own. The members' counters and the unknown
 * emails' rows move there. The per-address counter counts attempts too, not only failures: each
 * is claimed before the secret is checked.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable('secret_attempts')
    .addColumn('subject', 'text', (column) => column.primaryKey())
    // Failed attempts since the last lock or whole sign-in, and those being checked now.
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('locked_until_us', dialect.bigintType)
    .execute()
  await db
    .insertInto('secret_attempts')
    .columns(['subject', 'attempts', 'locked_until_us'])
    .expression(
      db
        .selectFrom('members')
        .select([sql<string>`'member:' || id`.as('subject'), 'failed_sign_ins', 'locked_until_us'])
        .where((where) =>
          where.or([where('failed_sign_ins', '>', 0), where('locked_until_us', 'is not', null)]),
        ),
    )
    .execute()
  await db
    .insertInto('secret_attempts')
    .columns(['subject', 'attempts', 'locked_until_us'])
    .expression(
      db
        .selectFrom('unknown_email_failures')
        .select([sql<string>`'email:' || email_hash`.as('subject'), 'failed_sign_ins', 'locked_until_us']),
    )
    .execute()
  await db.schema.dropTable('unknown_email_failures').execute()
  await db.schema.alterTable('members').dropColumn('failed_sign_ins').execute()
  await db.schema.alterTable('members').dropColumn('locked_until_us').execute()
  await db.schema.alterTable('sign_in_failures').renameTo('address_attempts').execute()
  await db.schema.alterTable('address_attempts').renameColumn('count', 'attempts').execute()
}
