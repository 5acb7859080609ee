/**
 * The engine and libs/mcp each spell the typed-field shapes (the engine imports nothing, libs/mcp
 * nothing of the engine): a deliberate seam between two packages that may not depend on each
 * other. These lines keep the two spellings one shape: a field added or changed on one side only
 * fails the typecheck here.
 */
import type { JsonSchema as McpJsonSchema, TypedField as McpTypedField, ValueType as McpValueType } from '#mcp';
import type { JsonSchema, TypedField, ValueType } from '../engine/types.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const FIELD_SHAPES_AGREE: [Same<McpTypedField, TypedField>, Same<McpValueType, ValueType>, Same<McpJsonSchema, JsonSchema>] = [
  true,
  true,
  true,
];
