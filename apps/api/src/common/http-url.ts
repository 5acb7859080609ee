import { z } from 'zod';

/**
 * An absolute http(s) URL the service will connect to (an MCP server, a model endpoint), without
 * userinfo: credentials belong in a field the API stores encrypted, which `credentialsHint` names.
 */
export function httpUrl(credentialsHint: string) {
  return z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not a valid absolute URL' });
        return;
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        ctx.addIssue({ code: 'custom', message: `the scheme must be http or https, not ${parsed.protocol.replace(/:$/, '')}` });
      }
      if (parsed.username || parsed.password) {
        ctx.addIssue({ code: 'custom', message: `credentials in the URL are not accepted: ${credentialsHint}` });
      }
    });
}
