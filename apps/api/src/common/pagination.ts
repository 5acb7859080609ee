import { isValidObjectId, type Model, type QueryFilter } from 'mongoose';
import { z } from 'zod';
import { parseRequest } from './zod-validation.js';

/** `?limit&cursor` of every list endpoint. The cursor is opaque: the last item's id. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .refine((value) => isValidObjectId(value), 'not a valid cursor')
    .optional(),
});

export type PageQuery = z.output<typeof pageQuerySchema>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  return parseRequest(pageQuerySchema, { limit: query.limit, cursor: query.cursor }, 'query');
}

/**
 * Newest first, by `_id` (ObjectIds grow with time), so paging is stable while items are added.
 * Fetches one extra item to know whether there is a next page.
 */
export async function findPage<D, T>(
  model: Model<D>,
  filter: QueryFilter<D>,
  page: PageQuery,
  toItem: (doc: D) => T,
): Promise<Page<T>> {
  const query = page.cursor ? { $and: [filter, { _id: { $lt: page.cursor } }] } : filter;
  const docs = (await model
    .find(query as QueryFilter<D>)
    .sort({ _id: -1 })
    .limit(page.limit + 1)
    .lean()
    .exec()) as D[];
  const items = docs.slice(0, page.limit);
  const last = items.at(-1) as { _id?: unknown } | undefined;
  return {
    items: items.map(toItem),
    nextCursor: docs.length > page.limit && last?._id ? String(last._id) : null,
  };
}
