import { z } from 'zod';

/** The answer of /providers as a zod schema (OpenAPI document). The API key is always "***". */
export const providerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    baseURL: z.string(),
    apiKey: z.literal('***'),
    models: z.array(z.string()),
    createdAt: z.string().meta({ format: 'date-time' }),
    updatedAt: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Provider' });
