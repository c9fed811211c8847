/**
 * Baseline: bare Fastify answering every GET with one fixed JSON body (the size of a Sika record),
 * with no logger, no hooks and no store: what Node and Fastify cost per request on this machine.
 *
 *   node --import tsx bench/baseline-fastify.ts <port> <body-file>
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const [portArg, bodyFile] = process.argv.slice(2)
if (!portArg || !bodyFile) throw new Error('usage: baseline-fastify.ts <port> <body-file>')
const body = readFileSync(bodyFile, 'utf8')
const app = Fastify({ logger: false })
app.get('/*', async (_request, reply) => reply.header('content-type', 'application/json').send(body))
await app.listen({ port: Number(portArg), host: '127.0.0.1' })
process.stdout.write('baseline ready\n')
