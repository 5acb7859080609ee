import { isValidObjectId, Types } from 'mongoose';

/** Whether `value` can name a stored document, so callers outside persistence need no mongoose. */
export function isStoredId(value: string): boolean {
  return isValidObjectId(value);
}

/** A fresh document id, for callers that must know it before the insert (e.g. to listen for a run's events). */
export function newStoredId(): string {
  return new Types.ObjectId().toHexString();
}
