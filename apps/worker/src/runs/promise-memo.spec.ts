import { describe, expect, it } from '@jest/globals';
import { PromiseMemo } from './promise-memo.js';

describe('PromiseMemo', () => {
  it('shares one load per key among concurrent callers', async () => {
    const memo = new PromiseMemo<number>();
    let loads = 0;
    const load = async () => ++loads;
    const values = await Promise.all([memo.get('a', load), memo.get('a', load), memo.get('b', load)]);
    expect(values).toEqual([1, 1, 2]);
    expect(loads).toBe(2);
  });

  it('forgets a failed load so the next caller tries again', async () => {
    const memo = new PromiseMemo<string>();
    await expect(memo.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(memo.get('k', async () => 'up')).resolves.toBe('up');
    await expect(memo.get('k', async () => 'not called')).resolves.toBe('up');
  });
});
