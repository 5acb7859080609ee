import { originOf, storedSecretsMayFollow } from '#mcp';
import type { NodeSecrets } from '../engine/node-secrets.js';
import type { NodeRegistry } from '../engine/registry.js';
import { SECRET_MASK } from '../engine/scrub-secrets.js';
import type { NodeDefinition, WorkflowDefinition } from '../engine/types.js';
import type { SecretBox } from './secret-box.js';

/**
 * Secret values in node configs (`NodeExecutor.secretConfig`: an `http` node's `{"secret": …}`
 * headers), as the workflow store keeps them: sealed (AES-256-GCM, `SecretBox`) beside the
 * definition, which holds `"***"` in their place — so every answer, copy and log of a definition
 * shows `"***"`, and only a run's host opens them, for the node that declared them.
 */

/** One sealed value of a stored workflow version. */
export interface SealedConfigSecret {
  nodeId: string;
  /** JSON pointer inside the node. */
  path: string;
  /** The origin it was given for (`boundTo`'s); it is kept and handed out only for that origin. */
  origin?: string;
  /** `SecretBox` form. */
  sealed: string;
}

/** A definition ready for the store, sealed against the secrets of the version it follows (none for a new workflow). */
export type SealDefinition = (previous: readonly SealedConfigSecret[]) => { definition: WorkflowDefinition; secrets: SealedConfigSecret[] };

/** A secret value that cannot be stored as given (code spelled as for toolset headers). */
export interface ConfigSecretProblem {
  path: string;
  code: 'SECRET_REQUIRED' | 'INVALID_CONFIG';
  message: string;
}

/** Thrown by the store when a definition's secret values cannot be sealed; `problems` carry the paths (a 400 for the caller). */
export class ConfigSecretsRefused extends Error {
  override readonly name = 'ConfigSecretsRefused';
  constructor(readonly problems: ConfigSecretProblem[]) {
    super(`${problems.length} secret value(s) cannot be stored`);
  }
}

/** The origin of a URL that has one (not `null`, as `data:` URLs have). */
function fixedOrigin(url: string): string | undefined {
  const origin = originOf(url);
  return origin === 'null' ? undefined : origin;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Sets the value at a JSON pointer inside `target` when every step on the way exists. */
function replaceAt(target: unknown, pointer: string, value: unknown): void {
  const segments = segmentsOf(pointer);
  const last = segments.pop();
  let at = target;
  for (const segment of segments) at = isRecord(at) ? at[segment] : undefined;
  if (isRecord(at) && last !== undefined && last in at) at[last] = value;
}

/**
 * Secret declarations where the store keeps none: on the nodes of sub-graphs held in a node's config
 * (a map's body: the node type's `subgraphs`), at any depth. Only a workflow's own nodes hold sealed values.
 */
export function nestedSecretProblems(definition: WorkflowDefinition, registry: NodeRegistry): ConfigSecretProblem[] {
  const inner = (node: NodeDefinition, path: string, nested: boolean): ConfigSecretProblem[] => {
    const executor = typeof node?.type === 'string' ? registry.get(node.type) : undefined;
    const own = nested ? (executor?.secretConfig?.(node) ?? []) : [];
    const problems = own.map((secret): ConfigSecretProblem => ({
      path: `${path}${secret.path}`,
      code: 'INVALID_CONFIG',
      message: 'a node inside a sub-graph cannot hold a sealed value: read a secret run input ("{{inputs.<name>}}") instead',
    }));
    for (const subgraph of executor?.subgraphs?.(node) ?? []) {
      const nodes = Array.isArray(subgraph.definition?.nodes) ? subgraph.definition.nodes : [];
      nodes.forEach((child, index) => problems.push(...inner(child, `${path}${subgraph.path}/nodes/${index}`, true)));
    }
    return problems;
  };
  return (Array.isArray(definition.nodes) ? definition.nodes : []).flatMap((node, index) => inner(node, `/nodes/${index}`, false));
}

/**
 * The definition to store (`"***"` at every declared secret value) and its sealed values. A value
 * given as `"***"` keeps what `previous` (the version this one follows) holds for the same node and
 * path, only while its origin is the same (a stored credential belongs to its origin:
 * docs/security.md); kept values sealed under an older key are sealed again under the current one.
 */
export function sealConfigSecrets(
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  box: SecretBox,
  previous: readonly SealedConfigSecret[] = [],
): { definition: WorkflowDefinition; secrets: SealedConfigSecret[] } {
  const problems = nestedSecretProblems(definition, registry);
  const stored = structuredClone(definition);
  const secrets: SealedConfigSecret[] = [];
  for (const [index, node] of stored.nodes.entries()) {
    for (const { path, value, boundTo } of registry.get(node.type)?.secretConfig?.(node) ?? []) {
      const where = `/nodes/${index}${path}`;
      const origin = boundTo === undefined ? undefined : fixedOrigin(boundTo);
      if (boundTo !== undefined && origin === undefined) {
        problems.push({ path: where, code: 'INVALID_CONFIG', message: 'a secret value needs a URL with a fixed origin to be sent to' });
        continue;
      }
      const sealed = value === SECRET_MASK ? keptValue(previous, node.id, path, origin, box, where) : box.seal(value);
      if (typeof sealed !== 'string') {
        problems.push(sealed);
        continue;
      }
      secrets.push({ nodeId: node.id, path, ...(origin !== undefined && { origin }), sealed });
      replaceAt(node, path, SECRET_MASK);
    }
  }
  if (problems.length > 0) throw new ConfigSecretsRefused(problems);
  return { definition: stored, secrets };
}

function keptValue(
  previous: readonly SealedConfigSecret[],
  nodeId: string,
  path: string,
  origin: string | undefined,
  box: SecretBox,
  where: string,
): string | ConfigSecretProblem {
  const kept = previous.find((secret) => secret.nodeId === nodeId && secret.path === path);
  const required = (message: string): ConfigSecretProblem => ({ path: where, code: 'SECRET_REQUIRED', message });
  if (!kept) return required('"***" keeps a stored value, and there is none here: give the value');
  const follows = kept.origin === undefined || origin === undefined ? kept.origin === origin : storedSecretsMayFollow(kept.origin, origin);
  if (!follows) {
    return required(`the value was given for ${kept.origin ?? 'no origin'} and would now go to ${origin ?? 'no origin'}: give it again`);
  }
  try {
    return box.needsReseal(kept.sealed) ? box.seal(box.open(kept.sealed)) : kept.sealed;
  } catch {
    return required('the stored value cannot be opened with SECRETS_KEY or SECRETS_KEY_PREVIOUS: give it again');
  }
}

/** The run's port to its version's sealed values: opened on demand, each only for its node and its origin. */
export function openConfigSecrets(secrets: readonly SealedConfigSecret[], box: SecretBox): NodeSecrets {
  return async (nodeId, targetUrl) => {
    const origin = targetUrl === undefined ? undefined : fixedOrigin(targetUrl);
    const values: Record<string, string> = {};
    for (const secret of secrets) {
      if (secret.nodeId === nodeId && (secret.origin === undefined || secret.origin === origin))
        values[secret.path] = box.open(secret.sealed);
    }
    return values;
  };
}
