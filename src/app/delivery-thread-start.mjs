// @ts-check
// What a callback delivery thread runs first (delivery-thread.ts): it loads the thread's module
// (`entry`: the delivery thread's bundle in a service, a stand-in in tests) and runs its side.
// Plain JavaScript, checked by the type checker through its JSDoc: a worker's entry module cannot
// be TypeScript under the test runner's loader on Node 20 (nodejs/node#47747). In a service it is
// bundled to dist/ beside sika.mjs (scripts/build.mjs), under the same name.
import { workerData } from 'node:worker_threads'

/** @typedef {{ runDeliveryThread(data: unknown): Promise<void> }} DeliveryThreadModule */

const { entry } = /** @type {{ entry: string }} */ (workerData)
const module = /** @type {DeliveryThreadModule} */ (await import(entry))
await module.runDeliveryThread(workerData)
