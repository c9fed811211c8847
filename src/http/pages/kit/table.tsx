import type { ComponentChildren } from 'preact'
import { type KitPage, kitWords } from './page.ts'

/** A column: its heading, and what a row shows in it. */
export interface Column<Row> {
  header: string
  cell: (row: Row) => ComponentChildren
  /** Amounts and counts: aligned right, in figures of one width. */
  numeric?: boolean
  /** The cell that names the row (a `th scope="row"`). */
  rowHeader?: boolean
}

/** Rows of data under their column headings; `empty` (or the kit's "Nothing yet.") when there are none. */
export function Table<Row>(props: {
  page: KitPage
  columns: readonly Column<Row>[]
  rows: readonly Row[]
  rowKey: (row: Row) => string
  id?: string
  caption?: string
  empty?: string
  /** A class for a row that stands out, such as one at fault. */
  rowClass?: (row: Row) => string | undefined
}) {
  const { columns, rows } = props
  if (rows.length === 0) return <p class="muted">{props.empty ?? kitWords(props.page).none}</p>
  return (
    <table id={props.id}>
      {props.caption && <caption>{props.caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.header} scope="col" class={column.numeric ? 'num' : undefined}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={props.rowKey(row)} class={props.rowClass?.(row)}>
            {columns.map((column) =>
              column.rowHeader ? (
                <th key={column.header} scope="row">
                  {column.cell(row)}
                </th>
              ) : (
                <td key={column.header} class={column.numeric ? 'num' : undefined}>
                  {column.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
