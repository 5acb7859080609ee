/** MongoDB's (and FerretDB's) duplicate-key error: a unique index refused the write. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
