/**
 * The one queue that batches: items wait while `inFlight` batches run, the next batch takes up to
 * `largestBatch` of them from the front, in the order they came, and one function runs a batch and
 * answers each of its items. What a failure answers is the run function's to say: `failAll` and
 * `retryOneByOne` below, or a function of the caller's own.
 *
 * An item submitted while fewer than `inFlight` batches run starts a batch at once, in the same
 * call, alone: an idle queue adds no wait. A batch that ends starts the next one in its own
 * answer's continuation. Nothing waits for a timer or a later turn of the event loop, so which
 * items share a batch depends only on when each was submitted and when each batch ended.
 */
export class Batcher<Item, Result> {
  private queue: Pending<Item, Result>[] = []
  private running = 0

  constructor(private readonly options: BatcherOptions<Item, Result>) {}

  /** Resolves with the item's answer once the batch that holds it has given it. */
  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push(new Pending(item, resolve, reject))
      if (this.running < this.options.inFlight) this.startBatch()
    })
  }

  /** True while a batch runs or an item waits. */
  get busy(): boolean {
    return this.running > 0 || this.queue.length > 0
  }

  /** Answers every item still waiting with `error`; the batches running go on. */
  failQueued(error: unknown): void {
    for (const pending of this.queue.splice(0)) pending.reject(error)
  }

  private startBatch(): void {
    const batch = this.queue.splice(0, this.options.largestBatch)
    this.running += 1
    let ran: Promise<void>
    try {
      ran = this.options.run(batch)
    } catch (error) {
      ran = Promise.reject(error)
    }
    ran.then(
      () => this.ended(batch, undefined),
      (error: unknown) => this.ended(batch, { error }),
    )
  }

  private ended(batch: readonly Pending<Item, Result>[], failure: { error: unknown } | undefined): void {
    // A run that throws fails every item it had not answered yet; one that forgets an item is a bug
    // its caller hears of rather than a promise that never settles.
    for (const pending of batch) {
      if (pending.answered) continue
      pending.reject(failure ? failure.error : new Error('the batch ended without answering this item'))
    }
    this.running -= 1
    if (this.queue.length > 0) this.startBatch()
    else if (this.running === 0) this.options.onIdle?.()
  }
}

export interface BatcherOptions<Item, Result> {
  /** The most batches that run at once. */
  readonly inFlight: number
  /** The most items one batch takes. */
  readonly largestBatch: number
  /** Runs one batch and answers each of its items; if it throws, those it did not answer fail with it. */
  readonly run: RunBatch<Item, Result>
  /** Called when a batch ends, none runs, and nothing waits. */
  readonly onIdle?: () => void
}

export type RunBatch<Item, Result> = (batch: readonly Pending<Item, Result>[]) => Promise<void>

/** An item in a batch and its caller's answer. The first answer counts; later ones are ignored. */
export class Pending<Item, Result> {
  answered = false

  constructor(
    readonly item: Item,
    private readonly fulfil: (result: Result) => void,
    private readonly refuse: (error: unknown) => void,
  ) {}

  resolve(result: Result): void {
    if (this.answered) return
    this.answered = true
    this.fulfil(result)
  }

  reject(error: unknown): void {
    if (this.answered) return
    this.answered = true
    this.refuse(error)
  }
}

/** Runs a batch's items together; resolves with each item's result, in the items' order. */
export type RunTogether<Item, Result> = (items: readonly Item[]) => Promise<readonly Result[]>

/** Failure policy: a batch that fails fails each of its items, as each would have failed alone. */
export function failAll<Item, Result>(together: RunTogether<Item, Result>): RunBatch<Item, Result> {
  return async (batch) => {
    const results = await together(batch.map((pending) => pending.item))
    answerInOrder(batch, results)
  }
}

/**
 * Failure policy: a batch of several that fails runs each of its items again, alone (a batch of one
 * through the same function), one after another, each answered as it ends: an item that cannot be
 * made fails alone. A batch of one that fails fails its item.
 */
export function retryOneByOne<Item, Result>(together: RunTogether<Item, Result>): RunBatch<Item, Result> {
  return async (batch) => {
    let results: readonly Result[]
    try {
      results = await together(batch.map((pending) => pending.item))
    } catch (error) {
      if (batch.length === 1) throw error
      for (const pending of batch)
        await together([pending.item]).then(
          ([result]) => pending.resolve(result as Result),
          (alone: unknown) => pending.reject(alone),
        )
      return
    }
    answerInOrder(batch, results)
  }
}

function answerInOrder<Item, Result>(
  batch: readonly Pending<Item, Result>[],
  results: readonly Result[],
): void {
  for (let index = 0; index < batch.length; index++) batch[index]!.resolve(results[index] as Result)
}
