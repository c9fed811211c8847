/**
 * The text a customer sees on their phone for a payment (CONTRACT.md, Operators): pawaPay's
 * customerMessage, MTN MoMo's payerMessage and payeeNote, and their equivalents take 4 to 22
 * letters, digits or spaces. The merchant may give it; otherwise its name is cut to fit.
 */
export const statementDescriptorPattern = '^[A-Za-z0-9 ]{4,22}$'

const longest = 22
const shortest = 4

/**
 * A merchant's name as statement text: accents dropped ("Café Élodie" is "Cafe Elodie"), other
 * characters out, spaces collapsed, cut to 22. Undefined when fewer than 4 characters are left.
 */
export function statementDescriptorOf(merchantName: string): string | undefined {
  const text = merchantName
    .normalize('NFD')
    .replace(/[^A-Za-z0-9 ]/g, '')
    .replace(/ +/g, ' ')
    .trim()
    .slice(0, longest)
    .trim()
  return text.length >= shortest ? text : undefined
}
