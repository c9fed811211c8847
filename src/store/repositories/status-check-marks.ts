import type { RepositoryScope } from './executor.ts'

/** A claim of a side's status check: the side's mark is this check's, or another check began at `checkedAtUs`. */
export type StatusCheckClaim = { claimed: true } | { claimed: false; checkedAtUs: number }

/**
 * When each live side's status was last asked of its operator: a column of the side's row in
 * `operator_references`, which every instance reads and writes, found by its primary key.
 */
export interface StatusCheckMarksRepository {
  /**
   * Marks the side as checked at `nowUs` unless a check began after `notSinceUs`: one conditional
   * update decides, so of the instances claiming together one gets it. When refused, says when the
   * check that holds it began. A reference with no row has no mark to keep, and is claimed.
   */
  claim(operatorReference: string, nowUs: number, notSinceUs: number): Promise<StatusCheckClaim>
}

export function statusCheckMarksRepository({ db }: RepositoryScope): StatusCheckMarksRepository {
  return {
    async claim(operatorReference, nowUs, notSinceUs) {
      const updated = await db
        .updateTable('operator_references')
        .set({ status_checked_at_us: nowUs })
        .where('reference', '=', operatorReference)
        .where((where) =>
          where.or([
            where('status_checked_at_us', 'is', null),
            where('status_checked_at_us', '<=', notSinceUs),
          ]),
        )
        .executeTakeFirst()
      if (updated.numUpdatedRows > 0n) return { claimed: true }
      const row = await db
        .selectFrom('operator_references')
        .select('status_checked_at_us')
        .where('reference', '=', operatorReference)
        .executeTakeFirst()
      const checkedAtUs = row?.status_checked_at_us
      return checkedAtUs === undefined || checkedAtUs === null
        ? { claimed: true }
        : { claimed: false, checkedAtUs: Number(checkedAtUs) }
    },
  }
}
