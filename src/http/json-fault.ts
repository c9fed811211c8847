/**
 * Where and why a request body is not JSON, as a sentence for the caller, or undefined when it
 * is JSON. It comes from the parser's own message: its position (an offset, or a line and a
 * column) becomes a line and a column of the body; where it gives none, what it found is told.
 */
export function describeJsonFault(text: string): string | undefined {
  try {
    JSON.parse(text)
    return undefined
  } catch (error) {
    return error instanceof SyntaxError ? sentenceOf(text, error.message) : undefined
  }
}

function sentenceOf(text: string, parserMessage: string): string {
  const lead = 'The request body is not valid JSON'
  if (/^Unexpected end of JSON input/.test(parserMessage))
    return `${lead}: it ends before the JSON does (${lineAndColumn(text, text.length)}).`
  const stated = /\(line (\d+) column (\d+)\)/.exec(parserMessage)
  const offset = /at position (\d+)/.exec(parserMessage)
  const where = stated
    ? `line ${stated[1]}, column ${stated[2]}`
    : offset
      ? lineAndColumn(text, Number(offset[1]))
      : undefined
  const reason = reasonOf(parserMessage)
  return where ? `${lead}: ${reason} at ${where}.` : `${lead}: ${reason}.`
}

/** The parser's reason without its position or its echo of the body, starting in lower case. */
function reasonOf(parserMessage: string): string {
  const token = /^Unexpected token '(.+?)', /.exec(parserMessage)
  const reason = token
    ? `unexpected '${token[1]}'`
    : parserMessage
        .replace(/\s*\(line \d+ column \d+\)/, '')
        .replace(/\s*(in JSON )?at position \d+.*$/s, '')
        .replace(/\s+in JSON$/, '')
  return reason.charAt(0).toLowerCase() + reason.slice(1)
}

/** 1-based, as editors count; a column counts the characters before it on its line. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - (before.lastIndexOf('\n') + 1) + 1
  return `line ${line}, column ${column}`
}
