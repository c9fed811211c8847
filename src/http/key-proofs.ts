import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * Requests waiting for their api-key to be proven. A burst of requests with a key the credential
 * cache holds nothing fresh for arrives before any of them is authenticated: the first goes on as
 * the key's prover (through admission, as its address's), and the others wait here, holding no
 * slot and no place in the line, until the prover's credentials have been checked
 * (`credentialsChecked`, from authentication) or its answer has ended. Then each is tried again at
 * the front door, where the credential cache now proves it, or not; a request tried again is never
 * held again. At most `limit` wait at once: beyond, a request goes on unproven.
 *
 * So a merchant's first burst meets its per-key limit in front of admission as a later one does,
 * after one credential read, and a key that does not prove itself is checked through admission as
 * before: the front door never reads the store.
 */
export class KeyProofs {
  /** Each key's proof under way: the requests waiting for it to end. */
  private readonly underWay = new Map<string, (() => void)[]>()
  private waiting = 0

  constructor(private readonly limit: number) {}

  /**
   * True when the request waits for the key's proof under way (`resume` is called once it ends);
   * false when it goes on now, as the key's prover when no proof is under way.
   */
  waitForProof(
    apiKey: string,
    request: IncomingMessage,
    response: ServerResponse,
    resume: () => void,
  ): boolean {
    const waiting = this.underWay.get(apiKey)
    if (waiting) {
      if (this.waiting >= this.limit) return false
      waiting.push(resume)
      this.waiting += 1
      return true
    }
    const resumes: (() => void)[] = []
    this.underWay.set(apiKey, resumes)
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      proofEnds.delete(request)
      this.underWay.delete(apiKey)
      this.waiting -= resumes.length
      // In a check phase of their own, not inside the prover's authentication.
      if (resumes.length === 0) return
      setImmediate(() => {
        for (const resume of resumes) resume()
      })
    }
    proofEnds.set(request, end)
    response.once('close', end)
    return false
  }
}

/** The end of each prover's proof, by its request. */
const proofEnds = new WeakMap<IncomingMessage, () => void>()

/** Authentication has checked this request's credentials: the requests waiting for its proof go on. */
export function credentialsChecked(request: IncomingMessage): void {
  proofEnds.get(request)?.()
}
