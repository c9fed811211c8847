/**
 * `compute`, remembering its answers for up to `kept` inputs, then forgetting them all at once.
 * For what every delivery works out again from the same string: a callback URL's endpoint and
 * parts. Most merchants send every callback to one URL; one that puts an order's id in each URL
 * misses every time, which costs a map entry, and `kept` bounds the memory that takes.
 */
export function createBoundedMemo<T extends object | string>(
  compute: (input: string) => T,
  kept: number,
): (input: string) => T {
  const answers = new Map<string, T>()
  return (input) => {
    let answer = answers.get(input)
    if (answer === undefined) {
      answer = compute(input)
      if (answers.size >= kept) answers.clear()
      answers.set(input, answer)
    }
    return answer
  }
}
