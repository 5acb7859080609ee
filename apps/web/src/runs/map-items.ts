import type { LogItem } from './run-state';

/** The log items of one item of a map's body: its own node executions, and the items of a map inside it. */
export interface ItemGroup {
  index: number;
  /** `<map>[0]/<map>[1]…`: where it is, for tests and screen readers. */
  path: number[];
  items: LogItem[];
  groups: ItemGroup[];
}

/** A body node's execution carries `itemPath` (`[7]`, or `[2, 5]` in a map inside a map's body). */
export function itemPathOf(item: LogItem): number[] {
  return Array.isArray(item.itemPath) ? (item.itemPath as unknown[]).filter((index): index is number => typeof index === 'number') : [];
}

/** Whether a log item belongs to the top-level node `nodeId`: its own executions, or one of its body's (`nodeId[3]/echo`). */
export function belongsTo(item: LogItem, nodeId: string): boolean {
  return item.nodeId === nodeId || item.nodeId.startsWith(`${nodeId}[`);
}

/** The body node an item's execution is of: `each[7]/echo` → `echo`, `outer[2]/inner` → `inner`. */
export function bodyNodeOf(item: LogItem): string {
  return item.nodeId.slice(item.nodeId.lastIndexOf('/') + 1);
}

/** Body items grouped by their index at `depth` of `itemPath`, in index order; deeper paths nested. */
export function groupByItem(items: LogItem[], depth = 0, parent: number[] = []): ItemGroup[] {
  const byIndex = new Map<number, LogItem[]>();
  for (const item of items) {
    const index = itemPathOf(item)[depth];
    if (index === undefined) continue;
    byIndex.set(index, [...(byIndex.get(index) ?? []), item]);
  }
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, members]) => ({
      index,
      path: [...parent, index],
      items: members.filter((item) => itemPathOf(item).length === depth + 1),
      groups: groupByItem(
        members.filter((item) => itemPathOf(item).length > depth + 1),
        depth + 1,
        [...parent, index],
      ),
    }));
}

/** An item's outcome in one word: failed if any of its executions failed, else the last one's status. */
export function groupStatus(group: ItemGroup): string {
  const all = [...group.items, ...group.groups.flatMap(flatten)];
  if (all.some((item) => item.status === 'failed')) return 'failed';
  return all.sort((a, b) => a.seq - b.seq).at(-1)?.status ?? 'none';
}

function flatten(group: ItemGroup): LogItem[] {
  return [...group.items, ...group.groups.flatMap(flatten)];
}
