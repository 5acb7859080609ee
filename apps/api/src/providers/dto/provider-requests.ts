import { z } from 'zod';
import { httpUrl } from '../../common/http-url.js';

/** Request bodies of /providers (strict: unknown fields are rejected with their path). */

/** What responses show instead of the API key; sent back in a PATCH it means "keep it". */
export const MASK = '***';

const baseURL = httpUrl('send the key as apiKey (stored encrypted)');

const name = z.string().trim().min(1).max(200);
const apiKey = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[^\r\n\0]*$/, 'must not contain CR, LF or NUL');
const models = z.array(z.string().trim().min(1).max(200)).max(500);

export const createProviderBody = z.strictObject({ name, baseURL, apiKey, models: models.optional() });
export type CreateProviderBody = z.output<typeof createProviderBody>;

export const updateProviderBody = z
  .strictObject({ name: name.optional(), baseURL: baseURL.optional(), apiKey: apiKey.optional(), models: models.optional() })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, baseURL, apiKey, models');
export type UpdateProviderBody = z.output<typeof updateProviderBody>;
