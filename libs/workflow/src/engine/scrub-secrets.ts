/** What every answer, log and stored message shows instead of a secret value. */
export const SECRET_MASK = '***';

/**
 * Replaces every secret value that occurs in a text (a server may echo a credential in its error),
 * and the credential part of a value alone (`Bearer <token>` → `<token>`). Values shorter than 4
 * characters (parts: 8) are left alone: they cannot be told apart from ordinary text.
 */
export function scrubSecrets(text: string, secrets: string[]): string {
  const parts = secrets.flatMap((secret) => secret.split(/\s+/).filter((part) => part.length >= 8));
  return [...secrets.filter((secret) => secret.length >= 4), ...parts]
    .sort((a, b) => b.length - a.length)
    .reduce((result, secret) => result.split(secret).join(SECRET_MASK), text);
}
