import { z } from 'zod';
import { isStoredId, type Page, type PageRequest } from '#workflow/nest';

export type { Page } from '#workflow/nest';

/** `?limit&cursor` of every list endpoint (`@Query(new ZodPipe(pageQuerySchema, 'query'))`). The cursor is opaque: the last item's id. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .refine((value) => isStoredId(value), 'not a valid cursor')
    .optional(),
});

export type PageQuery = z.output<typeof pageQuerySchema> & PageRequest;

/** A repository's page with each item turned into its API view. */
export function mapPage<D, T>(page: Page<D>, toItem: (doc: D) => T): Page<T> {
  return { items: page.items.map(toItem), nextCursor: page.nextCursor };
}
