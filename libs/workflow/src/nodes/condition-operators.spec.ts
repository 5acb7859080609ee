import { describe, expect, it } from '@jest/globals';
import { applyOperator } from './condition-operators.js';

describe('condition operators', () => {
  it.each([
    ['eq', { a: [1, 2] }, { a: [1, 2] }, true],
    ['eq', '1', 1, false],
    ['ne', 'a', 'b', true],
    ['gt', 5, 3, true],
    ['gt', '5', 3, false],
    ['gte', 3, 3, true],
    ['lt', 'apple', 'banana', true],
    ['lte', 4, 3, false],
    ['lte', null, 3, false],
    ['contains', 'hello world', 'world', true],
    ['contains', [{ id: 1 }, { id: 2 }], { id: 2 }, true],
    ['contains', 42, 4, false],
    ['notContains', ['a'], 'b', true],
    ['exists', 0, undefined, true],
    ['exists', null, undefined, false],
    ['empty', '', undefined, true],
    ['empty', [], undefined, true],
    ['empty', {}, undefined, true],
    ['empty', 0, undefined, false],
  ] as const)('%s(%j, %j) is %s', (op, left, right, expected) => {
    expect(applyOperator(op, left, right)).toBe(expected);
  });
});
