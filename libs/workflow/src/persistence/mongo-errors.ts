/** MongoDB's (and FerretDB's) duplicate-key error: a unique index refused the write. */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, writeErrors } = error as { code?: unknown; writeErrors?: unknown };
  // A bulk insert names the refused document among its write errors.
  return code === 11000 || (Array.isArray(writeErrors) && writeErrors.some((entry: { code?: unknown }) => entry?.code === 11000));
}
