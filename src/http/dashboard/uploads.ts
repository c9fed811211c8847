import type { FastifyInstance, preParsingAsyncHookHandler } from 'fastify'
import type { AccountRow, AccountSessionRow, LiveSessionOf } from '../../app/sign-in/account-book.ts'
import type { Mode } from '../../domain/kinds.ts'
import type { AreaGuard } from '../pages/session-guard.tsx'
import { boundaryOf, readFirstField, readMultipart } from './multipart.ts'

/** The largest upload: the payout batch's file of 1,000 rows, or its submission carrying the file again. */
const uploadLimitBytes = 2 * 1024 * 1024
/** The CSRF field leads the upload forms: its part is whole within this. */
const firstFieldLimitBytes = 1024

/**
 * The file uploads of the dashboard and the console: the only routes that take a multipart body,
 * registered in a scope of their own. No upload's body is read before it has shown it may be
 * sent: a session signed in with the route's permission, from this origin
 * (guard.memberBeforeBody), then the session's CSRF token as the form's first field, read alone
 * (at most 1 KiB) before the rest. Anything else is answered at once and its connection closed,
 * so its body is never read, and no other route parses a multipart body at all (415).
 * `bytesFields` are files kept byte for byte (one latin1 character a byte) rather than read as
 * UTF-8 text.
 */
export function acceptUploads(
  scope: FastifyInstance,
  { limitBytes = uploadLimitBytes, bytesFields = [] }: { limitBytes?: number; bytesFields?: string[] } = {},
): void {
  scope.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: limitBytes },
    (request, body, done) => {
      const fields = readMultipart(body as Buffer, String(request.headers['content-type'] ?? ''), bytesFields)
      if (fields) done(null, fields)
      else done(Object.assign(new Error('The form could not be read.'), { statusCode: 400 }), undefined)
    },
  )
}

/** The check an upload route makes before its body is read (`preParsing`), for members with `permission` (in `mode`). */
export function uploadGate<
  R extends string,
  P extends string,
  L extends LiveSessionOf<AccountRow, AccountSessionRow>,
>(guard: AreaGuard<R, P, L>, permission: P, mode?: Mode): preParsingAsyncHookHandler {
  return async (request, reply, payload) => {
    const signedIn = await guard.memberBeforeBody(request, reply, permission, mode)
    if (!signedIn) return undefined
    const contentType = String(request.headers['content-type'] ?? '')
    // Not an upload: the dashboard's form parser reads it (64 KiB at most), or none does (415).
    if (!/^multipart\/form-data/i.test(contentType)) return undefined
    const boundary = boundaryOf(contentType)
    const first = boundary ? await readFirstField(payload, boundary, firstFieldLimitBytes) : undefined
    const token = first?.field?.name === 'csrf' ? first.field.value : ''
    if (!first || !guard.checkForm(request, reply, signedIn.live.session.id, token)) return undefined
    // The token checked, the rest of the body is read and parsed as usual; the route checks it all again.
    reply.removeHeader('connection')
    return first.replay()
  }
}
