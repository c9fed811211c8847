// A merchant's callback receiver: verifies Sika's Standard Webhooks signature, then acts once per event id.
// Run: SIKA_WEBHOOK_SECRET=whsec_... npx tsx examples/callback-receiver.ts   (listens on :4000)
import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

const secret = process.env.SIKA_WEBHOOK_SECRET
if (!secret) throw new Error('set SIKA_WEBHOOK_SECRET to the webhook secret Sika printed (whsec_...)')
const webhook = new Webhook(secret)
const seen = new Set<string>() // use your database in production: deliveries can repeat

createServer((request, response) => {
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
}).listen(4000, () => console.log('listening for Sika callbacks on http://localhost:4000/sika/callback'))
