import { z } from 'zod';
import { SCOPES } from '../scopes.js';

/** Request bodies of /api-keys (strict: unknown fields are rejected with their path). */
export const createApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .transform((scopes) => [...new Set(scopes)]),
  /** Limits the key to these workflows (others answer 404 to it). */
  workflows: z
    .array(z.string().regex(/^[0-9a-f]{24}$/i, 'not a workflow id'))
    .min(1)
    .max(100)
    .transform((ids) => [...new Set(ids)])
    .optional(),
  expiresAt: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .refine((date) => date.getTime() > Date.now(), 'must be in the future')
    .optional(),
});
export type CreateApiKeyBody = z.output<typeof createApiKeyBody>;
