import { z } from 'zod';

/** Request bodies of /providers (strict: unknown fields are rejected with their path). */

/** What responses show instead of the API key; sent back in a PATCH it means "keep it". */
export const MASK = '***';

const baseURL = z
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
      ctx.addIssue({ code: 'custom', message: 'credentials in the URL are not accepted: send the key as apiKey (stored encrypted)' });
    }
  });

const name = z.string().trim().min(1).max(200);
const apiKey = z.string().min(1).max(8192).regex(/^[^\r\n\0]*$/, 'must not contain CR, LF or NUL');
const models = z.array(z.string().trim().min(1).max(200)).max(500);

export const createProviderBody = z.strictObject({ name, baseURL, apiKey, models: models.optional() });
export type CreateProviderBody = z.output<typeof createProviderBody>;

export const updateProviderBody = z
  .strictObject({ name: name.optional(), baseURL: baseURL.optional(), apiKey: apiKey.optional(), models: models.optional() })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, baseURL, apiKey, models');
export type UpdateProviderBody = z.output<typeof updateProviderBody>;
