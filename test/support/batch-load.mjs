// Run as a process of its own by test/payout-batch-fairness.test.ts, so the batches' bodies are
// built and sent outside the process that measures the other merchant's answers.
// Arguments: the service's URL, then a JSON object:
//   { apiKey, secretKey, items, amount, metadataKeys, perSecond, durationMs, atOnce, referencePrefix }
// `metadataKeys`: each item carries that many metadata values of 450 characters (4 make a batch of
// 1,000 items about 2 MiB, the most a batch body may weigh).
// `perSecond` > 0: batches sent at that pace for `durationMs`, however long each takes to answer;
// otherwise `atOnce` batches sent together, once.
// Prints one JSON line: the count of each status answered, and each answer's duration.
const [url, optionsJson] = process.argv.slice(2)
const options = JSON.parse(optionsJson)
const headers = {
  'api-key': options.apiKey,
  'secret-key': options.secretKey,
  'content-type': 'application/json',
}
let sent = 0

const metadata = Object.fromEntries(
  Array.from({ length: options.metadataKeys ?? 0 }, (_, index) => [`note${index}`, 'x'.repeat(450)]),
)

/** Each batch's body: one template of items, its references made new by the batch's own prefix. */
const template = JSON.stringify({
  merchantReference: 'BATCH',
  items: Array.from({ length: options.items }, (_, index) => ({
    amount: options.amount,
    channel: 'orange-money',
    country: 'CI',
    customer: {
      phoneNumber: `2250700${String(index % 1000).padStart(3, '0')}123`,
      fullName: `Payee ${index} of a long enough name to weigh`,
    },
    merchantReference: `BATCH-item-${index}`,
    ...(options.metadataKeys ? { metadata } : {}),
  })),
})

function body() {
  sent += 1
  return template.replaceAll('BATCH', `${options.referencePrefix}-${process.pid}-${sent}`)
}

const statuses = {}
const durationsMs = []
async function sendOne(text) {
  const started = performance.now()
  try {
    const response = await fetch(`${url}/api/v1/payout-batch`, { method: 'POST', headers, body: text })
    await response.arrayBuffer()
    statuses[response.status] = (statuses[response.status] ?? 0) + 1
  } catch {
    statuses.error = (statuses.error ?? 0) + 1
  }
  durationsMs.push(Math.round(performance.now() - started))
}

const sending = []
if (options.perSecond > 0) {
  const intervalMs = 1000 / options.perSecond
  const started = performance.now()
  for (let index = 0; performance.now() - started < options.durationMs; index++) {
    sending.push(sendOne(body()))
    const nextAt = started + (index + 1) * intervalMs
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextAt - performance.now())))
  }
} else {
  const bodies = Array.from({ length: options.atOnce }, body)
  for (const text of bodies) sending.push(sendOne(text))
}
await Promise.all(sending)
process.stdout.write(`${JSON.stringify({ statuses, durationsMs })}\n`)
