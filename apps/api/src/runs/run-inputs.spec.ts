import { describe, expect, it } from '@jest/globals';
import { runInputProblems, withDefaults } from './run-inputs.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer', default: 2 },
    tags: { type: 'array', items: { type: 'string' } },
    'odd key': { type: 'object', properties: { 'a/b': { type: 'number' } } },
  },
  required: ['name'],
};

describe('run inputs', () => {
  it('reports every problem with a JSON pointer under /inputs', () => {
    const problems = runInputProblems(schema, { count: 'x', tags: ['ok', 3], 'odd key': { 'a/b': 'no' } });
    expect(problems.map((problem) => problem.path).sort()).toEqual([
      '/inputs/count',
      '/inputs/name',
      '/inputs/odd key/a~1b',
      '/inputs/tags/1',
    ]);
    expect(problems.every((problem) => problem.code === 'INPUT_INVALID')).toBe(true);
  });

  it('accepts valid inputs, and anything without a schema', () => {
    expect(runInputProblems(schema, { name: 'n' })).toEqual([]);
    expect(runInputProblems(undefined, { anything: true })).toEqual([]);
  });

  it('fills top-level defaults the caller left out, never over a given value', () => {
    expect(withDefaults(schema, { name: 'n' })).toEqual({ name: 'n', count: 2 });
    expect(withDefaults(schema, { name: 'n', count: 5 })).toEqual({ name: 'n', count: 5 });
  });
});
