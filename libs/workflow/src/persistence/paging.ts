import type { Model, QueryFilter } from 'mongoose';

/** `?limit&cursor` of a list: the cursor is opaque to clients, the last item's id. */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Newest first, by `_id` (ObjectIds grow with time), so paging is stable while items are added.
 * Fetches one extra item to know whether there is a next page. Repositories call it on their own
 * models; nothing outside persistence sees a model.
 */
export async function findPage<D, T>(model: Model<D>, filter: QueryFilter<D>, page: PageRequest, toItem: (doc: D) => T): Promise<Page<T>> {
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
