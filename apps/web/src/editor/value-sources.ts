import type { components } from '#client';

/** A typed input or output, as the API describes them (GET /node-types, a toolset's tools). */
export type TypedField = components['schemas']['TypedField'];

/** The value-source vocabulary of libs/workflow (`ValueSource`): a literal, a reference or a template. */
export type SourceKind = 'value' | 'ref' | 'template';

/** A `node.output` reference a node may use: an output of a node before it, with its declared type. */
export interface RefOption {
  ref: string;
  valueType: string;
  /** A node whose outputs are not declared (`start` of a workflow without inputSchema): any key, given as the path. */
  open?: boolean;
}

/** How a literal of a field is typed in: a choice of its enum, a checkbox, a number, text, or JSON. */
export type LiteralEditor = 'choice' | 'boolean' | 'number' | 'text' | 'secret' | 'json';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Which kind of value source an input has (undefined: not set, or not a value source the form knows). */
export function kindOf(source: unknown): SourceKind | undefined {
  if (!isRecord(source)) return undefined;
  return (['value', 'ref', 'template'] as const).find((kind) => kind in source);
}

export function literalEditor(field: TypedField): LiteralEditor {
  if (Array.isArray(field.enum) && field.enum.length > 0) return 'choice';
  if (field.valueType === 'boolean') return 'boolean';
  if (field.valueType === 'number' || field.valueType === 'integer') return 'number';
  if (field.valueType === 'string') return isRecord(field.schema) && field.schema.writeOnly === true ? 'secret' : 'text';
  return 'json';
}

/** The source a field starts with when the person picks a kind: its default, the first fitting reference, an empty template. */
export function startingSource(kind: SourceKind, field: TypedField, refs: RefOption[]): Record<string, unknown> {
  if (kind === 'ref') return { ref: sortedRefs(refs, field.valueType).find((option) => !option.open)?.ref ?? '' };
  if (kind === 'template') return { template: '' };
  if (field.default !== undefined) return { value: field.default };
  const editor = literalEditor(field);
  if (editor === 'choice') return { value: field.enum?.[0] };
  if (editor === 'boolean') return { value: false };
  if (editor === 'number') return { value: 0 };
  if (editor === 'json') return { value: field.valueType.startsWith('array<') ? [] : {} };
  return { value: '' };
}

/** Whether a reference of type `from` can feed an input of type `to` (the validator says the last word). */
export function typeFits(from: string, to: string): boolean {
  if (from === 'any' || to === 'any' || from === to) return true;
  if (from === 'integer' && to === 'number') return true;
  return from.startsWith('array<') && to === 'array<any>';
}

/** References that fit the input first, the others after (a path inside an `any` output may still fit). */
export function sortedRefs(refs: RefOption[], valueType: string): RefOption[] {
  return [...refs.filter((ref) => typeFits(ref.valueType, valueType)), ...refs.filter((ref) => !typeFits(ref.valueType, valueType))];
}

/** Splits a reference into the offered `node.output` it starts with and the path inside it (`mcpTool1.result.sum` → `.sum`). */
export function splitRef(ref: string, refs: RefOption[]): { base: string; path: string } {
  const base = refs
    .map((option) => option.ref)
    .filter((option) => ref === option || ref.startsWith(`${option}.`))
    .sort((a, b) => b.length - a.length)[0];
  return base ? { base, path: ref.slice(base.length + 1) } : { base: ref, path: '' };
}

/** The inputs with `key`'s source replaced (undefined: removed). */
export function withSource(inputs: Record<string, unknown>, key: string, source: unknown): Record<string, unknown> {
  const next = { ...inputs };
  if (source === undefined) delete next[key];
  else next[key] = source;
  return next;
}

/** The JSON Schema `type` of a workflow input as a value type (`array` → `array<any>`), for the references start offers. */
export function valueTypeOfSchema(schema: unknown): string {
  const type = isRecord(schema) ? schema.type : undefined;
  const named = Array.isArray(type) ? type.find((candidate) => candidate !== 'null') : type;
  if (named === 'array') return 'array<any>';
  return typeof named === 'string' && ['string', 'number', 'integer', 'boolean', 'object'].includes(named) ? named : 'any';
}
