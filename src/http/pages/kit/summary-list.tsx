import type { ComponentChildren } from 'preact'

/** A row of a summary list: a label and its value; false, '', null or undefined leaves the row out. */
export type SummaryRow = readonly [label: string, value: ComponentChildren] | false | '' | null | undefined

/** A record's fields, one labelled row each (GOV.UK's summary list), as a table read row by row. */
export function SummaryList({ rows }: { rows: readonly SummaryRow[] }) {
  return (
    <table>
      <tbody>
        {rows.map(
          (row) =>
            row && (
              <tr key={row[0]}>
                <th scope="row">{row[0]}</th>
                <td>{row[1]}</td>
              </tr>
            ),
        )}
      </tbody>
    </table>
  )
}
