// @ts-check
// What a callback delivery thread runs first (delivery-thread.ts): it loads the thread's module
// (`entry`: the delivery thread's bundle in a service, a stand-in in tests) and runs its side.
// Plain JavaScript, checked by the type checker through its JSDoc, so that it has one name in src/
// and in dist/, where a service's bundle of it lies beside sika.mjs (scripts/build.mjs): the module
// that starts the thread finds it beside itself, from the sources or from the bundle.
import { workerData } from 'node:worker_threads'

/** @typedef {{ runDeliveryThread(data: unknown): Promise<void> }} DeliveryThreadModule */

const { entry } = /** @type {{ entry: string }} */ (workerData)
const module = /** @type {DeliveryThreadModule} */ (await import(entry))
await module.runDeliveryThread(workerData)
