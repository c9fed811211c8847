/**
 * Rows written many at a time go in chunks whose sizes are powers of two, the largest first, up to
 * `largest`: each length of a multi-row statement is its own statement template (and on
 * PostgreSQL its own named statement), so a list of any length costs at most log2(largest) + 1
 * shapes, not one per length. 1,000 rows at 128 are seven of 128, then 64, 32 and 8.
 */
export function powerOfTwoChunks<Row>(rows: readonly Row[], largest = 128): Row[][] {
  const chunks: Row[][] = []
  let from = 0
  for (let size = largest; size >= 1; size /= 2)
    while (rows.length - from >= size) {
      chunks.push(rows.slice(from, from + size))
      from += size
    }
  return chunks
}
