export const CONDITION_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'notContains', 'exists', 'empty'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** Operators that look at the left operand only. */
export const UNARY_OPERATORS: ReadonlySet<ConditionOperator> = new Set(['exists', 'empty']);

export function isConditionOperator(op: unknown): op is ConditionOperator {
  return (CONDITION_OPERATORS as readonly unknown[]).includes(op);
}

/** Structural equality of JSON-like values; no coercion (`"1"` is not `1`). */
function deepEqual(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => Object.hasOwn(rightRecord, key) && deepEqual((left as Record<string, unknown>)[key], rightRecord[key]));
}

/** Numbers compare as numbers, strings as strings; anything else is not ordered (false). */
function compare(left: unknown, right: unknown): number | undefined {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return undefined;
}

/** Substring for strings, element (deep equality) for arrays; other values contain nothing. */
function contains(container: unknown, item: unknown): boolean {
  if (typeof container === 'string') return typeof item === 'string' && container.includes(item);
  if (Array.isArray(container)) return container.some((element) => deepEqual(element, item));
  return false;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

export function applyOperator(op: ConditionOperator, left: unknown, right: unknown): boolean {
  switch (op) {
    case 'eq':
      return deepEqual(left, right);
    case 'ne':
      return !deepEqual(left, right);
    case 'gt':
      return (compare(left, right) ?? 0) > 0;
    case 'gte':
      return (compare(left, right) ?? -1) >= 0;
    case 'lt':
      return (compare(left, right) ?? 0) < 0;
    case 'lte':
      return (compare(left, right) ?? 1) <= 0;
    case 'contains':
      return contains(left, right);
    case 'notContains':
      return !contains(left, right);
    case 'exists':
      return left !== undefined && left !== null;
    case 'empty':
      return isEmpty(left);
  }
}
