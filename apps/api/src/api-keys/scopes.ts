/**
 * What a key may do. A key holds one or more scopes; a route names the scopes that suffice, and
 * `admin` suffices everywhere. Issue-specific scopes (e.g. `mcp`) are added here, nowhere else.
 */
export const SCOPES = ['admin', 'write', 'run', 'read', 'mcp', 'metrics'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** True when the held scopes include `admin`, which suffices everywhere. */
export function isAdmin(held: readonly string[]): boolean {
  return held.includes('admin');
}

/** True when the held scopes include `admin` or one of `sufficient`. */
export function grants(held: readonly string[], sufficient: readonly Scope[]): boolean {
  return isAdmin(held) || sufficient.some((scope) => held.includes(scope));
}
