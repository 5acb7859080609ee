import type { Connection, Model, UpdateQuery } from 'mongoose';

/** What a document must hold for a transition to apply: equal values, or one of a list. */
export type Guard = Record<string, string | number | { $in: readonly (string | number)[] }>;

export type GuardMode = 'in-filter' | 'read-check-write';

const AFTER = { returnDocument: 'after' } as const;
const BEFORE = { returnDocument: 'before' } as const;

export function matchesGuard(doc: object, guard: Guard): boolean {
  const fields = doc as Record<string, unknown>;
  return Object.entries(guard).every(([field, expected]) => {
    const actual = fields[field];
    return typeof expected === 'object' ? expected.$in.some((value) => value === actual) : actual === expected;
  });
}

/**
 * How the connected store runs a guarded update. MongoDB evaluates the whole filter and applies
 * the update atomically, so the guard goes into the filter: a true compare-and-set. FerretDB v1
 * does not: findAndModify and update (1) select documents — in SQL only when the filter is
 * exactly `{_id}`, otherwise by reading and decoding the whole collection in Go —, (2) apply the
 * rest of the filter in Go and (3) write the changed document back with `UPDATE … WHERE _id = ?`,
 * three steps with no transaction or lock around them (internal/handler/msg_findandmodify.go and
 * common/update.go in FerretDB v1.24). There a guard in the filter is already a read, a check and
 * a write by `_id`; doing these three steps here gives the same guarantee — the guard held when
 * the document was read, and a writer landing between that read and the write is missed just as
 * FerretDB misses one landing during its scan — with `_id` lookups instead of a whole-collection
 * decode, whose cost grows with every run ever stored. Unknown stores get the in-filter guard.
 */
async function detectMode(connection: Connection): Promise<GuardMode> {
  const ready = connection.readyState === 1 ? connection : await connection.asPromise();
  const info = (await ready.db?.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: unknown } | undefined;
  return typeof info?.ferretdbVersion === 'string' && /^v?1\./.test(info.ferretdbVersion) ? 'read-check-write' : 'in-filter';
}

export interface ApplyOptions<T> {
  /** The document as the caller read it just now: spares the read on FerretDB v1. */
  known?: T;
  /** Work that must be done before the write (closing a run's MCP pool); on FerretDB v1 the read runs alongside it. */
  after?: Promise<unknown>;
}

const modes = new WeakMap<Connection, Promise<GuardMode>>();

function modeOf(connection: Connection): Promise<GuardMode> {
  let mode = modes.get(connection);
  if (!mode) {
    mode = detectMode(connection);
    modes.set(connection, mode);
    // A failed probe (store unreachable) is forgotten, so the next update asks again.
    mode.catch(() => modes.delete(connection));
  }
  return mode;
}

/**
 * Single-document transitions guarded by the document's current state (see `detectMode` for
 * how each store gets them): the document after the update, or undefined when the guard did not
 * hold or the document is gone.
 */
export class GuardedUpdates<T> {
  constructor(
    private readonly model: Model<T>,
    /** Fixed in tests; otherwise detected once per connection. */
    private readonly mode: () => Promise<GuardMode> = () => modeOf(model.db),
  ) {}

  async apply(id: unknown, guard: Guard, update: UpdateQuery<T>, options: ApplyOptions<T> = {}): Promise<T | undefined> {
    if ((await this.mode()) === 'in-filter') {
      await options.after;
      const doc = await this.model.findOneAndUpdate({ _id: id, ...guard }, update, AFTER).lean<T>();
      return doc ?? undefined;
    }
    const [current] = await Promise.all([options.known ?? this.model.findById(id).lean<T>(), options.after]);
    if (!current || !matchesGuard(current, guard)) return undefined;
    const doc = await this.model.findOneAndUpdate({ _id: id }, update, AFTER).lean<T>();
    return doc ?? undefined;
  }

  /**
   * For a transition that almost always applies (a worker claiming the run it was handed): the
   * document as it was before the update, when the guard held; else undefined. On FerretDB v1 the
   * write goes first, by `_id`, and the guard is checked on the document it returns; in the rare
   * case the guard did not hold, `undo` (built from that document) puts back what the write
   * changed. One round trip instead of a read and a write, at the price of a moment in which a
   * reader may see the undone change: acceptable only where that change is harmless to see.
   */
  async applyFirst(id: unknown, guard: Guard, update: UpdateQuery<T>, undo: (before: T) => UpdateQuery<T>): Promise<T | undefined> {
    if ((await this.mode()) === 'in-filter') {
      return (await this.model.findOneAndUpdate({ _id: id, ...guard }, update, BEFORE).lean<T>()) ?? undefined;
    }
    const before = await this.model.findOneAndUpdate({ _id: id }, update, BEFORE).lean<T>();
    if (!before) return undefined;
    if (matchesGuard(before, guard)) return before;
    await this.model.updateOne({ _id: id }, undo(before));
    return undefined;
  }
}
