/**
 * `compute`, remembering its answers for up to `kept` inputs, then forgetting them all at once.
 * For what every delivery works out again from the same few strings (a merchant's callback URLs,
 * its signing secrets): a bound, not a cache policy, since a merchant has a handful of each.
 */
export function remembered<T>(compute: (input: string) => T, kept: number): (input: string) => T {
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
