import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureWorkerBuilt } from './support/worker-process.js';

/** Logs every bare import of an infrastructure package while a module graph loads. */
const HOOK = `export async function resolve(specifier, context, next) {
  if (/^(@nestjs|mongoose|bullmq|ioredis|openai)(\\/|$)/.test(specifier)) console.log('infrastructure: ' + specifier);
  return next(specifier, context);
}`;

function packagesLoadedBy(entry: string): string[] {
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
    await import(${JSON.stringify(join(process.cwd(), entry))});
    console.log('loaded');`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  expect(result.stdout).toContain('loaded');
  return [...new Set(result.stdout.split('\n').filter((line) => line.startsWith('infrastructure: ')))];
}

describe('libs/workflow entry points', () => {
  it('#workflow (engine, node contract, node types) loads without Nest, mongoose, BullMQ, ioredis or openai', () => {
    ensureWorkerBuilt();
    expect(packagesLoadedBy('dist/libs/workflow/src/index.js')).toEqual([]);
  }, 300_000);

  it('#workflow/nest is where the infrastructure comes in', () => {
    expect(packagesLoadedBy('dist/libs/workflow/src/nest.js')).toEqual(
      expect.arrayContaining(['infrastructure: @nestjs/common', 'infrastructure: mongoose', 'infrastructure: bullmq']),
    );
  }, 60_000);
});
