import type { NodeExecutionContext } from './types.js';

/**
 * Port: the clear values of a node's sealed config secrets (`NodeExecutor.secretConfig`), by their
 * path inside the node, for the run being executed only. `targetUrl`: where the node is about to
 * send them; only values bound to that URL's origin (or bound to none) are given.
 */
export type NodeSecrets = (nodeId: string, targetUrl?: string) => Promise<Readonly<Record<string, string>>>;

/** Where the host puts the NodeSecrets of a run: `services.extras[NODE_SECRETS_EXTRA]`. */
export const NODE_SECRETS_EXTRA = 'nodeSecrets';

/** A node's sealed config value that this run cannot give it (absent, or bound to another origin than the request's). */
export const SECRET_CONFIG_MISSING = 'SECRET_CONFIG_MISSING';

/** The run's sealed config values of this node, in clear, for a request to `targetUrl`; {} when the host holds none. */
export async function nodeSecretsFor(context: NodeExecutionContext, targetUrl: string): Promise<Readonly<Record<string, string>>> {
  const source = context.services.extras?.[NODE_SECRETS_EXTRA] as NodeSecrets | undefined;
  return source ? source(context.node.id, targetUrl) : {};
}

/** A JSON-pointer segment for a key (`~` → `~0`, `/` → `~1`). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
