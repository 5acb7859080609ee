import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { chain, endNodeDef, startNodeDef } from '../engine/testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from '../engine/types.js';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import {
  ConfigSecretsRefused,
  nestedSecretProblems,
  openConfigSecrets,
  sealConfigSecrets,
  type SealedConfigSecret,
} from './config-secrets.js';
import { createSecretBox } from './secret-box.js';

const registry = createDefaultNodeRegistry();
const newKey = () => randomBytes(32).toString('hex');
const SECRET = 'Bearer sk-sealed-0123456789';
const PATH = '/config/headers/Authorization/secret';

function httpNode(url: string, secret: string, id = 'call'): NodeDefinition {
  return { id, type: 'http', config: { url, headers: { Authorization: { secret }, Accept: 'application/json' } }, inputs: {} };
}

function workflowWith(...nodes: NodeDefinition[]): WorkflowDefinition {
  return { name: 'sealed', nodes: [startNodeDef(), ...nodes, endNodeDef({})], edges: chain('start', ...nodes.map((n) => n.id), 'end') };
}

function refusal(work: () => unknown): ConfigSecretsRefused {
  try {
    work();
  } catch (error) {
    if (error instanceof ConfigSecretsRefused) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('sealed config values (node types declare them, the store seals them)', () => {
  const box = createSecretBox({ key: newKey() });

  it('the http node declares each {"secret"} header, bound to the fixed part of its url; templates are not secret', () => {
    const node = httpNode('https://api.example.com/items/{{start.id}}', SECRET);
    expect(registry.get('http')?.secretConfig?.(node)).toEqual([{ path: PATH, value: SECRET, boundTo: 'https://api.example.com/items/' }]);
    expect(registry.get('template')?.secretConfig).toBeUndefined();
  });

  it('stores "***" in the definition and the value sealed beside it, bound to the origin', () => {
    const given = workflowWith(httpNode('https://api.example.com/items', SECRET));
    const { definition, secrets } = sealConfigSecrets(given, registry, box);
    expect(definition.nodes[1].config.headers).toEqual({ Authorization: { secret: '***' }, Accept: 'application/json' });
    expect(given.nodes[1].config.headers).toMatchObject({ Authorization: { secret: SECRET } });
    expect(secrets).toEqual([{ nodeId: 'call', path: PATH, origin: 'https://api.example.com', sealed: expect.stringMatching(/^enc:v1:/) }]);
    expect(JSON.stringify({ definition, secrets })).not.toContain('sk-sealed');
    expect(box.open(secrets[0].sealed)).toBe(SECRET);
  });

  it('"***" keeps the previous version\'s value on the same origin (another path is fine), by node id', () => {
    const first = sealConfigSecrets(workflowWith(httpNode('https://api.example.com/a', SECRET)), registry, box);
    const moved = workflowWith(httpNode('https://api.example.com:443/b/{{start.id}}', '***'));
    const next = sealConfigSecrets(moved, registry, box, first.secrets);
    expect(next.secrets).toEqual(first.secrets);
    expect(next.definition.nodes[1].config.headers).toMatchObject({ Authorization: { secret: '***' } });
  });

  it('"***" is refused (SECRET_REQUIRED, with the path) with nothing to keep, another node id or another origin', () => {
    const first = sealConfigSecrets(workflowWith(httpNode('https://api.example.com/a', SECRET)), registry, box);
    const cases: [WorkflowDefinition, readonly SealedConfigSecret[]][] = [
      [workflowWith(httpNode('https://api.example.com/a', '***')), []],
      [workflowWith(httpNode('https://api.example.com/a', '***', 'renamed')), first.secrets],
      [workflowWith(httpNode('http://api.example.com/a', '***')), first.secrets],
      [workflowWith(httpNode('https://api.example.com:8443/a', '***')), first.secrets],
      [workflowWith(httpNode('https://evil.example.com/a', '***')), first.secrets],
    ];
    for (const [definition, previous] of cases) {
      const { problems } = refusal(() => sealConfigSecrets(definition, registry, box, previous));
      expect(problems).toEqual([{ path: `/nodes/1${PATH}`, code: 'SECRET_REQUIRED', message: expect.any(String) }]);
      expect(JSON.stringify(problems)).not.toContain('sk-sealed');
    }
  });

  it('a url whose origin is a template cannot hold a sealed value', () => {
    const { problems } = refusal(() => sealConfigSecrets(workflowWith(httpNode('https://{{start.host}}/a', SECRET)), registry, box));
    expect(problems).toEqual([{ path: `/nodes/1${PATH}`, code: 'INVALID_CONFIG', message: expect.any(String) }]);
  });

  it('after a key rotation, a kept value is sealed again under the new key', () => {
    const oldKey = newKey();
    const before = sealConfigSecrets(
      workflowWith(httpNode('https://api.example.com/a', SECRET)),
      registry,
      createSecretBox({ key: oldKey }),
    );
    const rotated = createSecretBox({ key: newKey(), previousKey: oldKey });
    const after = sealConfigSecrets(workflowWith(httpNode('https://api.example.com/a', '***')), registry, rotated, before.secrets);
    const keyIdOf = (sealed: string) => sealed.split(':')[2];
    expect(keyIdOf(after.secrets[0].sealed)).not.toBe(keyIdOf(before.secrets[0].sealed));
    expect(rotated.needsReseal(after.secrets[0].sealed)).toBe(false);
    expect(createSecretBox({ key: newKey() }).isSealed(after.secrets[0].sealed)).toBe(true);
    expect(rotated.open(after.secrets[0].sealed)).toBe(SECRET);
  });

  it('refuses sealed values inside a sub-graph (a map body), with the nested path', () => {
    const map: NodeDefinition = {
      id: 'each',
      type: 'map',
      config: { body: workflowWith(httpNode('https://api.example.com/a', SECRET)) },
      inputs: { items: { value: [1] } },
    };
    const definition = workflowWith(map);
    const expected = [{ path: `/nodes/1/config/body/nodes/1${PATH}`, code: 'INVALID_CONFIG', message: expect.any(String) }];
    expect(nestedSecretProblems(definition, registry)).toEqual(expected);
    expect(refusal(() => sealConfigSecrets(definition, registry, box)).problems).toEqual(expected);
  });

  it('a run opens a value only for its node and only for a request to its origin', async () => {
    const { secrets } = sealConfigSecrets(workflowWith(httpNode('https://api.example.com/a', SECRET)), registry, box);
    const open = openConfigSecrets(secrets, box);
    expect(await open('call', 'https://api.example.com/other?x=1')).toEqual({ [PATH]: SECRET });
    expect(await open('call', 'https://api.example.com.evil.test/a')).toEqual({});
    expect(await open('call', 'http://api.example.com/a')).toEqual({});
    expect(await open('other', 'https://api.example.com/a')).toEqual({});
  });
});
