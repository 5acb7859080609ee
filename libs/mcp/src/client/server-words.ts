/** Longest excerpt of a server's own error message quoted in an error. */
const WORDS_CHARS = 300;

/**
 * What an HTTP error answer may quote of its body: the `error.message` of a JSON-RPC error (an MCP
 * server's own words, e.g. why a credential or a session was refused), nothing else. Any other body
 * (an HTML page, a text answer of whatever service listens at the URL) is never repeated, so that
 * registering or previewing a toolset cannot be used to read services on private addresses.
 */
export function serverWordsOf(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(text.slice(start)) as { jsonrpc?: unknown; error?: { message?: unknown } };
    const message = parsed?.jsonrpc === '2.0' ? parsed.error?.message : undefined;
    return typeof message === 'string' && message.length > 0 ? message.slice(0, WORDS_CHARS) : undefined;
  } catch {
    return undefined;
  }
}
