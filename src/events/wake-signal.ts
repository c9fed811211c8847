/**
 * Lets a background loop sleep until there may be work again: `wait(ms)` resolves after `ms`, or
 * as soon as `wake()` is called. A wake while the loop is busy is kept, so the next wait returns
 * at once and nothing is missed.
 */
export class WakeSignal {
  private pending = false
  private resolve: (() => void) | undefined

  wake(): void {
    const resolve = this.resolve
    if (resolve) {
      this.resolve = undefined
      resolve()
    } else this.pending = true
  }

  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false
      return Promise.resolve()
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.resolve = undefined
        resolve()
      }, ms)
      this.resolve = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }
}
