/**
 * JSON Schema → typed node fields (SPEC §2): each top-level property of an object schema becomes
 * one field. Unions degrade to the nearest honest type, and to `any` when nothing narrower is true.
 */
import type { JsonSchema, TypedField, ValueType } from '../types.js';
import { deref, isSchemaObject, usesRefs, type SchemaObject } from './local-refs.js';

/** Deeper nesting than this (recursive `$defs`) is typed `any` rather than followed. */
const MAX_DEPTH = 8;
const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'object']);

export function schemaToFields(schema: JsonSchema): TypedField[] {
  if (!isSchemaObject(schema)) return [];
  const { properties, required } = objectShape(schema, schema, 0);
  return Object.entries(properties).map(([key, property]) => toField(key, property, required.has(key), schema));
}

function toField(key: string, property: unknown, required: boolean, root: SchemaObject): TypedField {
  const resolved = deref(property, root) ?? {};
  const field: TypedField = {
    key,
    label: typeof resolved.title === 'string' ? resolved.title : key,
    valueType: valueTypeOf(property, root, 0),
    required,
    schema: selfContained(property, root),
  };
  if (typeof resolved.description === 'string') field.description = resolved.description;
  const values = enumOf(resolved, root);
  if (values) field.enum = values;
  if ('default' in resolved) field.default = resolved.default;
  return field;
}

/** Properties and required keys of an object schema, `allOf` members merged in. */
function objectShape(schema: unknown, root: SchemaObject, depth: number): { properties: SchemaObject; required: Set<string> } {
  const resolved = depth > MAX_DEPTH ? undefined : deref(schema, root);
  const properties: SchemaObject = isSchemaObject(resolved?.properties) ? { ...resolved.properties } : {};
  const required = new Set(Array.isArray(resolved?.required) ? resolved.required.filter((k): k is string => typeof k === 'string') : []);
  for (const part of Array.isArray(resolved?.allOf) ? resolved.allOf : []) {
    const shape = objectShape(part, root, depth + 1);
    Object.assign(properties, shape.properties);
    shape.required.forEach((key) => required.add(key));
  }
  return { properties, required };
}

export function valueTypeOf(schema: unknown, root: SchemaObject, depth = 0): ValueType {
  const resolved = depth > MAX_DEPTH ? undefined : deref(schema, root);
  if (!resolved) return 'any';
  const declared = typeof resolved.type === 'string' ? [resolved.type] : Array.isArray(resolved.type) ? resolved.type : [];
  const types = declared.filter((t): t is string => typeof t === 'string' && t !== 'null');
  if (types.length > 0)
    return merge(types.map((t) => (t === 'array' ? arrayType(resolved, root, depth) : SCALARS.has(t) ? (t as ValueType) : 'any')));
  const variants = Array.isArray(resolved.oneOf) ? resolved.oneOf : Array.isArray(resolved.anyOf) ? resolved.anyOf : undefined;
  if (variants) return merge(variants.filter((v) => !isNullSchema(v, root)).map((v) => valueTypeOf(v, root, depth + 1)));
  if (Array.isArray(resolved.allOf)) {
    return resolved.allOf.map((part) => valueTypeOf(part, root, depth + 1)).find((t) => t !== 'any') ?? 'any';
  }
  if ('const' in resolved) return typeOfValue(resolved.const);
  if (Array.isArray(resolved.enum)) return merge(resolved.enum.filter((v) => v !== null).map(typeOfValue));
  if (isSchemaObject(resolved.properties)) return 'object';
  if (resolved.items !== undefined || resolved.prefixItems !== undefined) return arrayType(resolved, root, depth);
  return 'any';
}

/** `array<T>` from `items`; tuples (`prefixItems`, draft-07 `items: [...]`) are `array<any>`. */
function arrayType(schema: SchemaObject, root: SchemaObject, depth: number): ValueType {
  const items = schema.items;
  if (items === undefined || Array.isArray(items) || schema.prefixItems !== undefined) return 'array<any>';
  return `array<${valueTypeOf(items, root, depth + 1)}>`;
}

/** One type when all agree; integer+number → number; mixed arrays → array<any>; else any. */
function merge(types: ValueType[]): ValueType {
  const unique = [...new Set(types)];
  if (unique.length === 1) return unique[0];
  if (unique.length === 0 || unique.includes('any')) return 'any';
  if (unique.every((t) => t === 'integer' || t === 'number')) return 'number';
  if (unique.every((t) => t.startsWith('array<'))) return 'array<any>';
  return 'any';
}

function typeOfValue(value: unknown): ValueType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array<any>';
  return isSchemaObject(value) ? 'object' : 'any';
}

function isNullSchema(schema: unknown, root: SchemaObject): boolean {
  const resolved = deref(schema, root);
  return resolved?.type === 'null' || (resolved !== undefined && 'const' in resolved && resolved.const === null);
}

/** `enum`, `const`, or a `oneOf`/`anyOf` made only of `const`s (labelled enums). */
function enumOf(schema: SchemaObject, root: SchemaObject): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  const variants = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  const consts = variants?.map((v) => deref(v, root)).filter((v) => v !== undefined && !isNullSchema(v, root));
  if (!consts?.length || !consts.every((v) => v !== undefined && 'const' in v)) return undefined;
  return consts.map((v) => v?.const);
}

/** The property schema with what it needs to stand alone: the root's dialect and local definitions. */
function selfContained(property: unknown, root: SchemaObject): JsonSchema {
  if (typeof property === 'boolean') return property;
  if (!isSchemaObject(property)) return {};
  const extra: SchemaObject = {};
  if (typeof root.$schema === 'string') extra.$schema = root.$schema;
  if (usesRefs(property)) {
    if (root.$defs !== undefined) extra.$defs = root.$defs;
    if (root.definitions !== undefined) extra.definitions = root.definitions;
  }
  return Object.keys(extra).length === 0 ? property : { ...extra, ...property };
}
