import { type MovementLine, movementMeaning } from '../../domain/movement-meanings.ts'
import type { PageContext } from './layout.tsx'

/** A ledger line in words, with its exact type beneath, as the statement names it. */
export function MovementText({ page, entry }: { page: PageContext<string>; entry: MovementLine }) {
  const { t } = page
  return (
    <>
      {t.movementMeanings[movementMeaning(entry)]}
      <br />
      <span class="muted">{t.movements[entry.type]}</span>
    </>
  )
}
