// A merchant's callback receiver: verifies Sika's Standard Webhooks signature, then acts once per event id.
// Run: SIKA_WEBHOOK_SECRET=whsec_... npx tsx examples/callback-receiver.ts
// It listens on 127.0.0.1:4000 (this machine only); RECEIVER_PORT and RECEIVER_HOST choose another
// port or interface (RECEIVER_HOST=0.0.0.0 in a container whose port is published).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

const secret = process.env.SIKA_WEBHOOK_SECRET
if (!secret) throw new Error('set SIKA_WEBHOOK_SECRET to the webhook secret Sika printed (whsec_...)')
const webhook = new Webhook(secret)
const seen = new Set<string>() // use your database in production: deliveries can repeat
const port = Number(process.env.RECEIVER_PORT ?? 4000)
const host = process.env.RECEIVER_HOST ?? '127.0.0.1'
if (!Number.isInteger(port) || port < 0 || port > 65_535)
  throw new Error('RECEIVER_PORT is a TCP port, 0 to 65535')

const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => {
    body += chunk
  })
  request.on('end', () => {
    let event: { id: string; type: string; data: Record<string, { token: string; status: string }> }
    try {
      // Checks the signature over the raw body and that the timestamp is recent.
      event = webhook.verify(body, request.headers as Record<string, string>) as typeof event
    } catch {
      response.writeHead(400).end('bad signature')
      return
    }
    if (!seen.has(event.id)) {
      seen.add(event.id)
      const record = Object.values(event.data)[0]
      console.log(`${event.type}: ${record?.token} is ${record?.status}`)
    }
    response.writeHead(204).end() // any 2xx within 10 s acknowledges; 410 stops the deliveries
  })
})
server.listen(port, host, () => {
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  console.log(`listening for Sika callbacks on http://${shown}:${address.port}/sika/callback`)
})
