import type { JsonSchema, TypedField, ValueType } from './types.js';

function elementTypeOf(type: ValueType): ValueType | undefined {
  return type.startsWith('array<') && type.endsWith('>') ? (type.slice(6, -1) as ValueType) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a run-time value fits a declared type. No coercion: `"5"` is not a number. */
export function valueFits(value: unknown, type: ValueType): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    default: {
      const element = elementTypeOf(type);
      if (element === undefined || !Array.isArray(value)) return false;
      return value.every((item) => valueFits(item, element));
    }
  }
}

/**
 * Whether a value declared as `source` may fit an input declared as `target` (checked at save time).
 * Lenient where a value can fit (a `number` may be an integer, `any` may be anything); strict
 * where it never can (a string is never a boolean).
 */
export function typeFits(source: ValueType, target: ValueType): boolean {
  if (source === 'any' || target === 'any' || source === target) return true;
  if ((source === 'integer' && target === 'number') || (source === 'number' && target === 'integer')) return true;
  const sourceElement = elementTypeOf(source);
  const targetElement = elementTypeOf(target);
  if (sourceElement !== undefined && targetElement !== undefined) return typeFits(sourceElement, targetElement);
  return false;
}

/** A short description of a run-time value's type, for error messages. */
export function describeValueType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object']);

/** The nearest honest type of a schema; a thin mirror of libs/mcp's mapping, enough for `inputSchema`. */
export function valueTypeOfSchema(schema: JsonSchema | undefined): ValueType {
  if (!isPlainObject(schema)) return 'any';
  const { type, items } = schema;
  if (typeof type !== 'string') return 'any';
  if (SCALAR_TYPES.has(type)) return type as ValueType;
  if (type === 'array') return `array<${valueTypeOfSchema(items as JsonSchema | undefined)}>`;
  return 'any';
}

/** One typed field per top-level property of an object schema (the `start` node's outputs). */
export function fieldsOfObjectSchema(schema: JsonSchema | undefined): TypedField[] | undefined {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(schema.properties).map(([key, property]) => {
    const described = isPlainObject(property) ? property : {};
    return {
      key,
      label: typeof described.title === 'string' ? described.title : key,
      description: typeof described.description === 'string' ? described.description : undefined,
      valueType: valueTypeOfSchema(property as JsonSchema),
      required: required.includes(key),
      enum: Array.isArray(described.enum) ? described.enum : undefined,
      default: described.default,
      schema: property as JsonSchema,
    };
  });
}
